#include "sim/cli/run_cluster.h"

#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/config/cluster_params.h"
#include "sim/config/data_paths.h"
#include "sim/core/input_error.h"
#include "sim/engine/cluster_run.h"
#include "sim/report/cluster_trace_writer.h"
#include "sim/report/cluster_writers.h"
#include "sim/report/engine_table.h"
#include "sim/report/report_writers.h"
#include "sim/results/cluster_report.h"

namespace roofsim::cli {

bool is_cluster_file(const std::filesystem::path& file) {
  try {
    const auto table = toml::parse_file(file.string());
    return table.contains("cluster");
  } catch (const toml::parse_error&) {
    return false;  // the hardware loader reports the syntax error
  }
}

namespace {

// The workload for the cluster's rank count: a workload whose parameter `devices` sets its ranks is loaded with it
// set to the cluster's device count, unless the user set it.
Workload load_for_cluster(const std::filesystem::path& file, std::vector<Override> overrides,
                          const ClusterParams& cluster) {
  Workload workload = load_workload(file, overrides, cluster.device);
  if (workload.devices == cluster.devices) return workload;
  const bool user_set =
      std::any_of(overrides.begin(), overrides.end(), [](const Override& o) { return o.key == "params.devices"; });
  std::string why;  // why the workload cannot take the cluster's count, when its `devices` parameter exists
  if (!user_set) {
    overrides.push_back(Override{"params.devices", std::to_string(cluster.devices)});
    try {
      workload = load_workload(file, overrides, cluster.device);
    } catch (const InputError& error) {
      // No `devices` parameter: keep the file's own count and let the check below speak. One that exists but
      // whose value the workload rejects (tensor parallelism over more devices than heads): say why.
      if (toml::parse_file(file.string())["params"]["devices"]) why = std::string(": ") + error.what();
    }
  }
  if (workload.devices != cluster.devices) {
    throw InputError(SourcePos{workload.file},
                     why.empty()
                         ? fmt::format("workload '{}' is written for {} devices; cluster '{}' has {} (set "
                                       "--set workload.params.devices={})",
                                       workload.name, workload.devices, cluster.name, cluster.devices, cluster.devices)
                         : fmt::format("workload '{}' is written for {} devices and cannot run on the {} of "
                                       "cluster '{}'{}",
                                       workload.name, workload.devices, cluster.devices, cluster.name, why));
  }
  return workload;
}

}  // namespace

int run_cluster_scenario(const ClusterRunArgs& args) {
  const auto overrides = split_overrides(args.sets);
  const ClusterParams cluster = load_cluster(args.cluster_file, overrides.hardware);
  const Workload workload =
      load_for_cluster(resolve_data_file(args.workload, "workloads"), overrides.workload, cluster);
  ClusterRunOptions options;
  options.collapse_symmetric = !args.full;
  if (!args.algorithm.empty()) {
    const auto algorithm = net::parse_algorithm(args.algorithm);
    if (!algorithm) throw InputError(SourcePos{"--algo"}, fmt::format("unknown algorithm '{}'", args.algorithm));
    options.algorithm = *algorithm;
  }
  const ClusterRunResult result = run_cluster(cluster, workload, options);
  const DeviceRoof device = cluster_device_roof(cluster);
  std::vector<Report> reports;
  for (const auto& rank : result.simulated)
    reports.push_back(make_rank_report(workload, cluster, device, rank, result));

  // The representative of rank 0 (every rank when symmetric) in the single-device tables, then the cluster's.
  write_console_table(reports.front(), std::cout);
  Report ops_only = reports.front();  // the engine table covers the ops, not the step row
  ops_only.ops.pop_back();
  write_engine_table(ops_only, device, result.simulated.front().result, std::cout);
  write_cluster_table(result, reports, std::cout);
  if (args.write_files) {
    write_report_files(reports.front(), device, args.out_dir);
    const std::filesystem::path out(args.out_dir);
    std::ofstream json(out / "cluster.json");
    if (!json) throw InputError(SourcePos{(out / "cluster.json").string()}, "cannot write the file");
    json << cluster_json(result, reports).dump(2) << "\n";
    std::ofstream trace(out / "trace.json");
    if (!trace) throw InputError(SourcePos{(out / "trace.json").string()}, "cannot write the file");
    write_cluster_trace_json(result, reports, trace);
    std::cout << "\nwrote " << (out / "report.json").string() << ", " << (out / "ops.csv").string() << ", "
              << (out / "roofline.svg").string() << " (rank " << result.simulated.front().rank << "), "
              << (out / "cluster.json").string() << ", " << (out / "trace.json").string() << "\n";
  }
  return 0;
}

}  // namespace roofsim::cli
