#include "sim/results/cluster_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/engine/collective_sync.h"
#include "sim/results/gap_attribution.h"
#include "sim/results/run_report.h"

namespace roofsim {

DeviceRoof cluster_device_roof(const ClusterParams& cluster) {
  DeviceRoof device = make_device_roof(cluster.device);
  if (device.network_bandwidth_bytes_per_s <= 0) {
    device.network_bandwidth_bytes_per_s = injection_bandwidth_bytes_per_s(cluster);
  }
  return device;
}

namespace {

nlohmann::ordered_json gap_json(const GapAttribution& gap) {
  auto causes = nlohmann::ordered_json::object();
  for (const auto& cause : gap.causes) causes[cause.name] = cause.seconds;
  return {{"ceiling_time_s", gap.ceiling_time_s},
          {"sim_time_s", gap.sim_time_s},
          {"gap_s", gap.gap_s},
          {"ceiling_taken_from", gap.absorbed_by},
          {"causes_s", causes}};
}

// Length of [begin, end] that the merged intervals cover.
Seconds covered_s(Seconds begin, Seconds end, const std::vector<std::pair<Seconds, Seconds>>& merged) {
  Seconds total = 0;
  for (const auto& [a, b] : merged) total += std::max(0.0, std::min(b, end) - std::max(a, begin));
  return total;
}

}  // namespace

GapAttribution step_gap(const OpReport& step, const StepStats& stats) {
  // The step's time splits into compute (some compute op ran), exposed communication (only communication ran) and
  // the rest (neither: launch latencies and dependencies between ops).
  GapInput input;
  input.sim_time_s = stats.step_s;
  const Seconds ceiling_s = step.roofline.ceilings[step.roofline.binding].time_s;
  input.ceiling_time_s = std::isfinite(ceiling_s) ? ceiling_s : 0.0;
  input.bound_by = step.roofline.bound_by;
  input.causes = {{"compute", stats.compute_s},
                  {"exposed_communication", stats.exposed_communication_s},
                  {"dependencies_launch", stats.step_s - stats.compute_s - stats.exposed_communication_s}};
  return attribute_gap(input);
}

GapAttribution collective_gap(const OpReport& row, const OpRunStats& op, const DeviceRoof& device,
                              const std::vector<std::pair<Seconds, Seconds>>& compute_merged) {
  // A collective's time on a rank, from reaching it to its end: exposed where no compute op of the rank ran,
  // overlapped otherwise. Its ceiling is the time to send its bytes at the device's network bandwidth.
  GapInput input;
  input.sim_time_s = op.end_s - op.launch_s;
  input.ceiling_time_s = device.network_bandwidth_bytes_per_s > 0
                             ? static_cast<double>(row.network_bytes) / device.network_bandwidth_bytes_per_s
                             : 0.0;
  input.bound_by = "network";
  const Seconds overlapped = covered_s(op.launch_s, op.end_s, compute_merged);
  input.causes = {{"exposed_communication", input.sim_time_s - overlapped}, {"overlapped_communication", overlapped}};
  return attribute_gap(input);
}

Report make_rank_report(const Workload& workload, const ClusterParams& cluster, const DeviceRoof& device,
                        const SimulatedRank& rank, const ClusterRunResult& result) {
  // The rank's bytes sent per collective op come from the simulated schedules, not from the ring formula.
  Workload simulated = workload;
  for (auto& op : simulated.ops) {
    if (is_collective(op.kind)) op.network_bytes = 0;
  }
  for (const auto& collective : result.collectives) {
    const GroupLayout layout{collective.group_size, collective.group_stride};
    if (collective.graph != rank.graph || layout.group_of(rank.rank) != collective.group) continue;
    simulated.ops[collective.op].network_bytes = collective.bytes_sent_per_rank;
  }
  Report report = make_run_report(simulated, cluster.device, device, rank.result);
  report.hardware_name = cluster.name;
  report.hardware_file = cluster.file;
  std::vector<std::pair<Seconds, Seconds>> compute;
  for (const auto& op : rank.result.ops) {
    if (op.simulated) compute.emplace_back(op.launch_s, op.end_s);
  }
  const auto compute_merged = merge_intervals(std::move(compute));
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    if (!is_collective(workload.ops[i].kind) || rank.result.ops[i].simulated) continue;
    report.ops[i].extra["gap"] = gap_json(collective_gap(report.ops[i], rank.result.ops[i], device, compute_merged));
  }

  OpReport step;
  step.name = fmt::format("step (rank {})", rank.rank);
  step.kind = "step";
  std::map<std::string, Bytes> bytes;
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    const auto& op = report.ops[i];
    if (i == 0) step.dtype = op.dtype;
    if (op.useful_flops > step.useful_flops) step.dtype = op.dtype;  // the type of the op with the most FLOPs
    step.useful_flops += op.useful_flops;
    step.executed_flops += op.executed_flops;
    step.network_bytes += op.network_bytes;
    for (const auto& level : op.bytes) bytes[level.level] += level.bytes;
  }
  for (const auto& name : report.levels) step.bytes.push_back(LevelBytes{name, bytes[name]});
  RooflineInput input;
  input.flops = step.useful_flops;
  input.bytes = step.bytes;
  input.network_bytes = step.network_bytes;
  input.dtype = step.dtype;
  step.roofline = evaluate_roofline(device, input);
  step.sim_time_s = rank.step.step_s;
  step.achieved_flops_per_s = rank.step.step_s > 0 ? static_cast<double>(step.useful_flops) / rank.step.step_s : 0.0;
  step.extra["simulated"] = true;
  step.extra["represents_ranks"] = rank.represents;
  step.extra["compute_s"] = rank.step.compute_s;
  step.extra["communication_s"] = rank.step.communication_s;
  step.extra["exposed_communication_s"] = rank.step.exposed_communication_s;
  step.extra["gap"] = gap_json(step_gap(step, rank.step));
  report.ops.push_back(std::move(step));
  return report;
}

const OpReport& step_row(const Report& rank_report) {
  if (rank_report.ops.empty() || rank_report.ops.back().kind != "step") {
    throw std::logic_error("a rank report ends with its step row");
  }
  return rank_report.ops.back();
}

}  // namespace roofsim
