// `roofsim ert`: the Empirical Roofline Toolkit's method (Lo et al., PMBS 2014) run on the simulated device: ERT's
// kernel over working sets from on-chip to DRAM sizes and rising FLOPs per element, simulated by the engine; the
// measured ceilings beside the analytic ones, ert.json, ert_points.csv, ert_ceilings.csv and ert.svg.
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/cli/input_names.h"
#include "sim/config/data_paths.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/engine/ert_plan.h"
#include "sim/engine/ert_run.h"
#include "sim/report/console_table.h"
#include "sim/report/ert_chart.h"
#include "sim/report/ert_writers.h"
#include "sim/results/ert_report.h"
#include "sim/roofline/roofline.h"

namespace roofsim::cli {

namespace {

struct ErtCommandOptions {
  std::string hardware;
  std::vector<std::string> sets;
  std::string out = "results";
  bool quick = false;
  std::string max_working_set;
  bool allow_large = false;
};

// Requests (reads and writes of a chunk) a sweep may simulate without --allow-large: the H100 file's default sweep
// makes about 3 million; a typo in a capacity (a 1 PiB cache) would make billions.
constexpr std::uint64_t kMaxChunkAccesses = 200'000'000;

// Progress on stderr, at most every two seconds, for runs that take that long.
class Progress {
 public:
  void operator()(std::size_t done, std::size_t total) {
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed_s < next_s_ && done != total) return;
    next_s_ = elapsed_s + 2.0;
    if (elapsed_s < 2.0) return;
    std::cerr << fmt::format("roofsim ert: {} of {} points simulated ({:.0f} s)\n", done, total, elapsed_s);
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double next_s_ = 2.0;
};

int run_ert_command(const ErtCommandOptions& options) {
  const auto overrides = split_overrides(options.sets);
  for (const auto& entry : overrides.workload) {
    throw InputError(SourcePos{"--set workload." + entry.key}, "ert runs no workload file: set hardware keys only");
  }
  const auto hardware =
      load_hardware(find_input_file("--hw", options.hardware, {"configs"}, "device"), overrides.hardware);
  ErtOptions plan_options;
  plan_options.quick = options.quick;
  if (!options.max_working_set.empty()) {
    const auto bytes = parse_bytes(options.max_working_set);
    if (!bytes || *bytes == 0) {
      throw InputError(SourcePos{"--max-working-set " + options.max_working_set}, "--max-working-set",
                       options.max_working_set, "a byte size greater than 0 such as \"256MiB\"");
    }
    plan_options.max_working_set_bytes = *bytes;
  }
  const ErtPlan plan = plan_ert(hardware, plan_options);
  check_work_limit(SourcePos{hardware.file}, "the ERT sweep of " + hardware.name, plan.chunk_accesses(),
                   options.allow_large ? ~std::uint64_t{0} : kMaxChunkAccesses, "requests");
  const OutputFolder folder(options.out);
  const DeferInterrupts defer;
  Progress progress;
  const ErtRunResult run = run_ert(hardware, plan, std::ref(progress));
  const auto device = make_device_roof(hardware);
  const ErtReport report = make_ert_report(hardware, device, plan, run, options.quick);
  write_ert_table(report, std::cout);
  const std::filesystem::path out(options.out);
  write_output_file(out / "ert.json", [&](std::ostream& stream) { write_ert_json(report, stream); });
  write_output_file(out / "ert_points.csv", [&](std::ostream& stream) { write_ert_points_csv(report, stream); });
  write_output_file(out / "ert_ceilings.csv", [&](std::ostream& stream) { write_ert_ceilings_csv(report, stream); });
  write_output_file(out / "ert.svg", [&](std::ostream& stream) { write_ert_svg(report, stream); });
  std::cout << "\n";
  write_wrote_line(out, {"ert.json", "ert_points.csv", "ert_ceilings.csv", "ert.svg"},
                   report.complete ? "" : "(the points finished before the interruption)", std::cout);
  return work_exit_code(run.measured_points, plan.points.size(), "points");
}

}  // namespace

void add_ert_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "ert",
      "Empirical Roofline Toolkit on the simulated device: measured memory and compute ceilings beside the analytic "
      "ones; ert.json, ert_points.csv, ert_ceilings.csv, ert.svg");
  auto options = std::make_shared<ErtCommandOptions>();
  command->add_option("--hw", options->hardware, "Hardware file, or a bundled device by name (H100-SXM5)")->required();
  command->add_option("--set", options->sets, "Override a hardware KEY=VALUE (repeatable), e.g. dram.model=simple");
  command->add_option("--out", options->out, "Folder for ert.json, ert_points.csv, ert_ceilings.csv and ert.svg")
      ->capture_default_str();
  command->add_flag("--quick", options->quick,
                    "Fewer points: the smallest working set, one per memory level and the largest; intensities x16; "
                    "one compute point per engine and data type");
  command->add_option("--max-working-set", options->max_working_set,
                      "Largest working set (default: twice the SRAM's total; without DRAM the outermost level's "
                      "capacity)");
  add_allow_large_flag(*command, options->allow_large);
  command->callback([options, &exit_code]() { exit_code = run_ert_command(*options); });
}

}  // namespace roofsim::cli
