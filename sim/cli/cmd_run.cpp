// `roofsim run`, the default scenario (`roofsim` alone) and the engine benchmark: load a device and a workload,
// simulate, and report each op's simulated time beside its ceilings.
#include <sys/resource.h>

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/config/data_paths.h"
#include "sim/engine/engine.h"

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

void print_table(const Scenario& scenario, std::ostream& out) {
  const auto& r = scenario.result;
  out << fmt::format("{} on {}: simulated {:.3f} us\n", r.workload, r.device, r.sim_time_s * 1e6);
  out << fmt::format("{:<28} {:<12} {:>7} {:>6} {:>12} {:>14}", "op", "kind", "tiles", "waves", "sim_time_us",
                     "achieved_TFLOP/s");
  if (!r.ops.empty()) {
    for (const auto& [level, bytes] : r.ops.front().bytes) out << fmt::format(" {:>14}", level + "_MB");
  }
  out << "\n";
  for (const auto& op : r.ops) {
    out << fmt::format("{:<28} {:<12} {:>7} {:>6} {:>12.3f} {:>14.2f}", op.name, op.kind, op.tiles, op.waves,
                       op.sim_time_s * 1e6, op.achieved_flops_per_s * 1e-12);
    for (const auto& [level, bytes] : op.bytes) out << fmt::format(" {:>14.3f}", static_cast<double>(bytes) * 1e-6);
    if (!op.simulated) out << "  " << op.note;
    out << "\n";
  }
}

int run_scenario(const RunOptions& options) {
  const auto scenario = simulate(options);
  print_table(scenario, std::cout);
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
