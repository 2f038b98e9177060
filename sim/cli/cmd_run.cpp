// `roofsim run`, the default scenario (`roofsim` alone) and the engine benchmark: load a device and a workload,
// simulate, and report each op's simulated time beside its ceilings.
#include <sys/resource.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/config/data_paths.h"
#include "sim/engine/engine.h"
#include "sim/engine/run_report.h"
#include "sim/report/report.h"
#include "sim/roofline/roofline.h"

namespace roofsim::cli {

namespace {

struct RunOptions {
  std::string hardware;
  std::string workload;
  std::vector<std::string> sets;
  std::string out_dir = "results";
  bool write_files = true;
};

struct Scenario {
  HardwareParams hardware;
  Workload workload;
  RunResult result;
};

Scenario simulate(const RunOptions& options) {
  const auto overrides = split_overrides(options.sets);
  Scenario scenario;
  scenario.hardware = load_hardware(resolve_data_file(options.hardware, "configs"), overrides.hardware);
  scenario.workload =
      load_workload(resolve_data_file(options.workload, "workloads"), overrides.workload, scenario.hardware);
  scenario.result = run_workload(scenario.hardware, scenario.workload);
  return scenario;
}

int run_scenario(const RunOptions& options) {
  const auto scenario = simulate(options);
  const auto device = make_device_roof(scenario.hardware);
  const auto report = make_run_report(scenario.workload, scenario.hardware, device, scenario.result);
  write_console_table(report, std::cout);
  write_engine_table(report, device, scenario.result, std::cout);
  if (options.write_files) {
    write_report_files(report, device, options.out_dir);
    const std::filesystem::path out(options.out_dir);
    std::cout << "\nwrote " << (out / "report.json").string() << ", " << (out / "ops.csv").string() << ", "
              << (out / "roofline.svg").string() << "\n";
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* command =
      app.add_subcommand("run", "Simulate a workload on a device and report each op's time beside its rooflines");
  auto options = std::make_shared<RunOptions>();
  command->add_option("--hw", options->hardware, "Hardware file (or a bundled name, e.g. H100-SXM5)")->required();
  command->add_option("--workload", options->workload, "Workload file (or a bundled name, e.g. gemm)")->required();
  command->add_option("--set", options->sets, "Override KEY=VALUE (hardware key, or workload.<key>); repeatable");
  command->add_option("--out", options->out_dir, "Folder for report.json, ops.csv and roofline.svg")
      ->capture_default_str();
  command->callback([options, &exit_code]() { exit_code = run_scenario(*options); });
}

int run_default_scenario() {
  RunOptions options;
  options.hardware = "H100-SXM5";
  options.workload = "transformer_prefill_small";
  options.write_files = false;
  return run_scenario(options);
}

int run_engine_bench() {
  RunOptions options;
  options.hardware = "H100-SXM5";
  options.workload = "transformer_prefill_small";
  options.write_files = false;
  const auto scenario = simulate(options);
  const auto& r = scenario.result;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << fmt::format(
      "engine bench: {} on {}\n  wall {:.3f} s, simulated {:.3f} us, events {}, events/s {:.3g}, peak RSS {:.1f} MiB\n",
      r.workload, r.device, r.wall_s, r.sim_time_s * 1e6, r.events, static_cast<double>(r.events) / r.wall_s,
      static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}

}  // namespace roofsim::cli
