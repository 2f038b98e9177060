#include "sim/cli/run_cluster.h"

#include <toml++/toml.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/cli/input_names.h"
#include "sim/cli/provenance.h"
#include "sim/config/cluster_params.h"
#include "sim/config/data_paths.h"
#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/engine/cluster_run.h"
#include "sim/report/cluster_trace_writer.h"
#include "sim/report/cluster_writers.h"
#include "sim/report/engine_table.h"
#include "sim/report/html_report.h"
#include "sim/report/report_writers.h"
#include "sim/results/cluster_report.h"
#include "sim/results/model_report.h"
#include "sim/results/run_report.h"

namespace roofsim::cli {

bool is_cluster_file(const std::filesystem::path& file) {
  // Peek only into a file the loader would read; it reports what is wrong with any other.
  if (!is_acceptable_input_file(file, kMaxConfigFileBytes)) return false;
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
                          const ClusterParams& cluster, const WorkLimits& limits) {
  Workload workload = load_workload(file, overrides, cluster.device, limits);
  if (workload.devices == cluster.devices) return workload;
  const bool user_set =
      std::any_of(overrides.begin(), overrides.end(), [](const Override& o) { return o.key == "params.devices"; });
  std::string why;  // why the workload cannot take the cluster's count, when its `devices` parameter exists
  if (!user_set) {
    overrides.push_back(Override{"params.devices", std::to_string(cluster.devices)});
    try {
      workload = load_workload(file, overrides, cluster.device, limits);
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

// A cluster run a signal stopped: rank 0's finished ops as a single-device report, without the figures that need the
// whole step (cluster.json, the trace).
int write_interrupted_cluster_run(const Workload& workload, const ClusterParams& cluster, const DeviceRoof& device,
                                  const ClusterRunResult& result, const ClusterRunArgs& args) {
  const auto& rank = result.simulated.front();
  Report report = make_run_report(workload, cluster.device, device, rank.result);
  report.provenance = make_provenance(cluster.device, workload, args.sets, args.cluster_file);
  if (args.summary) {
    write_summary(report, std::cout);
  } else {
    write_console_table(report, std::cout, args.table);
  }
  if (args.write_files) {
    const std::filesystem::path out(args.out_dir);
    auto files = write_report_files(report, device, out);
    remove_stale_output(out / "cluster.json");
    remove_stale_output(out / "trace.json");
    write_report_html_file(report, out);
    files.push_back("report.html");
    std::cout << "\n";
    write_wrote_line(out, files,
                     fmt::format("of rank {}'s finished ops (report.json: \"complete\": false); no cluster.json or "
                                 "trace.json",
                                 rank.rank),
                     std::cout);
  }
  return work_exit_code(rank.result.ops.size(), workload.ops.size(), "ops of rank " + std::to_string(rank.rank));
}

}  // namespace

int run_cluster_scenario(const ClusterRunArgs& args) {
  const auto overrides = split_overrides(args.sets);
  const WorkLimits limits = work_limits(args.allow_large);
  const ClusterParams cluster = load_cluster(args.cluster_file, overrides.hardware, limits);
  std::optional<nlohmann::ordered_json> model_json;
  std::optional<ModelWorkload> model;
  if (!args.model.model.empty()) {
    model = load_model_workload(args.model, overrides.workload, cluster.device, cluster.devices, limits);
    model_json = model_report_json(*model, cluster.device.dram ? cluster.device.dram->capacity_bytes : 0);
  }
  const Workload workload =
      model ? std::move(model->workload)
            : load_for_cluster(find_input_file("--workload", args.workload, {"workloads"}, "workload"),
                               overrides.workload, cluster, limits);
  // The ranks whose compute runs: one per class of symmetric ranks (one class, or one per pipeline stage), every
  // rank with --full (as run_cluster decides).
  const auto p2p = std::find_if(workload.ops.begin(), workload.ops.end(),
                                [](const Op& op) { return op.kind == OpKind::sendrecv && op.shape.peer != 0; });
  const std::uint64_t stages = p2p == workload.ops.end() ? 1
                               : p2p->shape.group == 0   ? cluster.devices
                                                         : p2p->shape.group;
  check_run_work(workload, cluster.device, args.full ? cluster.devices : stages, limits, !args.exact);
  if (!model) check_workload_fits(workload, cluster.device, args.model.allow_oversubscribe);
  // A model's pipeline stages each run their schedule's order of the ops.
  std::vector<const Workload*> graphs = {&workload};
  if (model && !model->stage_workloads.empty()) {
    graphs.clear();
    for (const auto& stage : model->stage_workloads) graphs.push_back(&stage);
  }
  ClusterRunOptions options;
  options.collapse_symmetric = !args.full;
  options.memoize = !args.exact;
  options.fast_forward = args.fast_forward && !args.exact;
  options.progress = !args.quiet;
  if (!args.algorithm.empty()) {
    const auto algorithm = net::parse_algorithm(args.algorithm);
    if (!algorithm) throw InputError(SourcePos{"--algo"}, fmt::format("unknown algorithm '{}'", args.algorithm));
    options.algorithm = *algorithm;
  }
  std::optional<OutputFolder> folder;
  if (args.write_files) folder.emplace(args.out_dir);
  const DeferInterrupts defer;
  const ClusterRunResult result = run_cluster(cluster, graphs, options);
  const DeviceRoof device = cluster_device_roof(cluster);
  const std::filesystem::path out(args.out_dir);
  if (!result.complete) {
    return write_interrupted_cluster_run(*result.graphs[result.simulated.front().graph], cluster, device, result, args);
  }
  // As a single-device run says it: the figures then come partly from ops simulated earlier, on any rank.
  const RunResult& first = result.simulated.front().result;
  if (!args.exact && !args.quiet && first.ops_replayed > 0) {
    std::cerr << fmt::format(
        "memoized: {} ops replayed over the simulated ranks, {} recorded ({} signatures); --exact "
        "simulates all\n",
        first.ops_replayed, first.ops_recorded, first.memo_signatures);
  }
  std::vector<Report> reports;
  for (const auto& rank : result.simulated)
    reports.push_back(make_rank_report(*result.graphs[rank.graph], cluster, device, rank, result));
  if (model_json) reports.front().extra["model"] = *model_json;
  reports.front().provenance = make_provenance(cluster.device, workload, args.sets, args.cluster_file);

  // The representative of rank 0 (every rank when symmetric) in the single-device tables, then the cluster's.
  Report ops_only = reports.front();  // the engine table covers the ops, not the step row
  ops_only.ops.pop_back();
  if (args.summary) {
    write_summary(reports.front(), std::cout);
  } else {
    write_console_table(reports.front(), std::cout, args.table);
    write_engine_table(ops_only, device, result.simulated.front().result, std::cout, args.table);
    write_cluster_table(result, reports, std::cout);
  }
  if (args.write_files) {
    auto files = write_report_files(reports.front(), device, out);
    write_output_file(out / "cluster.json",
                      [&](std::ostream& json) { json << cluster_json(result, reports).dump(2) << "\n"; });
    write_output_file(out / "trace.json",
                      [&](std::ostream& trace) { write_cluster_trace_json(result, reports, args.trace, trace); });
    write_report_html_file(reports.front(), out);
    files.insert(files.end(), {"cluster.json", "trace.json", "report.html"});
    std::cout << "\n";
    write_wrote_line(out, files, fmt::format("(ops and charts: rank {})", result.simulated.front().rank), std::cout);
  }
  return work_exit_code(workload.ops.size(), workload.ops.size(), "ops");
}

}  // namespace roofsim::cli
