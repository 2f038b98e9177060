#include "sim/engine/cluster_report.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/net/topology.h"
#include "sim/engine/gap_attribution.h"
#include "sim/engine/run_report.h"

namespace roofsim {

DeviceRoof cluster_device_roof(const ClusterParams& cluster) {
  DeviceRoof device = make_device_roof(cluster.device);
  if (device.network_bandwidth_bytes_per_s <= 0) {
    const net::Topology topology(cluster);
    BytesPerSecond injection = 0;
    for (net::LinkId l = 0; l < topology.link_count(); ++l) {
      if (topology.link(l).from == 0) injection += topology.link(l).params.bandwidth_bytes_per_s;
    }
    device.network_bandwidth_bytes_per_s = injection;
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
  const double ceiling = step.attainable_flops_per_s();
  input.ceiling_time_s = ceiling > 0 ? static_cast<double>(step.useful_flops) / ceiling : 0.0;
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
    if (rank.rank / collective.group_size != collective.group) continue;
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

void write_cluster_table(const ClusterRunResult& result, const std::vector<Report>& rank_reports, std::ostream& out) {
  out << fmt::format("\ncluster {}: {} ranks; {}\n", result.cluster, result.ranks, result.symmetry);
  const std::string header =
      fmt::format("{:<16} {:>11} {:>11} {:>11} {:>11} {:>12} {:>12} {:>12} {:>12}  {}", "rank", "step_us", "compute_us",
                  "comm_us", "exposed_us", "OI_net", "achieved_TF", "comm_ceil_TF", "binding_TF", "bound_by");
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (std::size_t i = 0; i < result.simulated.size(); ++i) {
    const auto& rank = result.simulated[i];
    const auto& step = step_row(rank_reports[i]);
    const double oi_net = step.network_bytes == 0
                              ? 0.0
                              : static_cast<double>(step.useful_flops) / static_cast<double>(step.network_bytes);
    out << fmt::format(
        "{:<16} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f} {:>12.1f} {:>12.2f} {:>12.2f} {:>12.2f}  {}\n",
        rank.represents > 1 ? fmt::format("{} (x{})", rank.rank, rank.represents) : std::to_string(rank.rank),
        rank.step.step_s * 1e6, rank.step.compute_s * 1e6, rank.step.communication_s * 1e6,
        rank.step.exposed_communication_s * 1e6, oi_net, step.achieved_flops_per_s.value_or(0) / 1e12,
        step.roofline.ceilings.comm.flops_per_s / 1e12, step.attainable_flops_per_s() / 1e12, step.roofline.bound_by);
  }
  out << "\nstep gap to the binding ceiling by cause, us (the causes add up to the gap)\n";
  const std::string gap_header =
      fmt::format("{:<16} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}", "rank", "ceiling", "step", "gap",
                  "compute", "exposed_com", "deps_launch", "ahead", "unattrib");
  out << gap_header << "\n" << std::string(gap_header.size(), '-') << "\n";
  for (std::size_t i = 0; i < result.simulated.size(); ++i) {
    const auto& rank = result.simulated[i];
    const auto gap = step_gap(step_row(rank_reports[i]), rank.step);
    out << fmt::format("{:<16} {:>11.3f} {:>11.3f} {:>11.3f}", std::to_string(rank.rank), gap.ceiling_time_s * 1e6,
                       gap.sim_time_s * 1e6, gap.gap_s * 1e6);
    for (const auto& cause : gap.causes) out << fmt::format(" {:>11.3f}", cause.seconds * 1e6);
    out << "\n";
  }
  out << fmt::format("\ncollectives ({} issued, {} network events)\n", result.collectives.size(),
                     result.network_events);
  const std::string coll_header =
      fmt::format("{:<28} {:>6} {:>6} {:>12} {:>12} {:>11} {:>11} {:>11} {:>11}  {}", "op", "group", "ranks", "bytes",
                  "sent/rank", "ready_us", "issue_us", "finish_us", "time_us", "algorithm");
  out << coll_header << "\n" << std::string(coll_header.size(), '-') << "\n";
  std::size_t shown = 0;
  for (const auto& c : result.collectives) {
    // One line per op for collectives over many groups: the first group stands for the rest when symmetric.
    if (c.group != 0 && result.symmetric) continue;
    ++shown;
    out << fmt::format("{:<28} {:>6} {:>6} {:>12} {:>12} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f}  {}\n", c.name,
                       c.group, c.group_size, c.message_bytes, c.bytes_sent_per_rank, c.ready_s * 1e6, c.issue_s * 1e6,
                       c.finish_s * 1e6, (c.finish_s - c.issue_s) * 1e6, c.algorithm);
  }
  if (shown < result.collectives.size()) {
    out << fmt::format("({} more groups finished with group 0)\n", result.collectives.size() - shown);
  }
}

nlohmann::ordered_json cluster_json(const ClusterRunResult& result, const std::vector<Report>& rank_reports) {
  nlohmann::ordered_json json;
  json["cluster"] = result.cluster;
  json["ranks"] = result.ranks;
  json["symmetry"] = result.symmetry;
  json["symmetric"] = result.symmetric;
  json["sim_time_s"] = result.sim_time_s;
  json["network_events"] = result.network_events;
  json["simulated_ranks"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < result.simulated.size(); ++i) {
    const auto& rank = result.simulated[i];
    const auto& step = step_row(rank_reports[i]);
    nlohmann::ordered_json entry;
    entry["rank"] = rank.rank;
    entry["represents"] = rank.represents;
    entry["step_s"] = rank.step.step_s;
    entry["compute_s"] = rank.step.compute_s;
    entry["communication_s"] = rank.step.communication_s;
    entry["exposed_communication_s"] = rank.step.exposed_communication_s;
    entry["flops"] = step.useful_flops;
    entry["network_bytes_sent"] = step.network_bytes;
    entry["comm_ceiling_flops_per_s"] = step.roofline.ceilings.comm.flops_per_s;
    entry["binding"] = std::string(to_string(step.roofline.binding));
    entry["binding_ceiling_flops_per_s"] = step.attainable_flops_per_s();
    entry["bound_by"] = step.roofline.bound_by;
    entry["oi_net_flop_per_byte"] =
        step.network_bytes == 0
            ? nlohmann::ordered_json(nullptr)
            : nlohmann::ordered_json(static_cast<double>(step.useful_flops) / static_cast<double>(step.network_bytes));
    entry["gap"] = step.extra["gap"];
    entry["ops"] = nlohmann::ordered_json::array();
    for (const auto& op : rank.result.ops) {
      entry["ops"].push_back({{"name", op.name},
                              {"kind", op.kind},
                              {"launch_s", op.launch_s},
                              {"end_s", op.end_s},
                              {"network", !op.simulated}});
    }
    json["simulated_ranks"].push_back(std::move(entry));
  }
  json["collectives"] = nlohmann::ordered_json::array();
  for (const auto& c : result.collectives) {
    json["collectives"].push_back({{"op", c.name},
                                   {"algorithm", c.algorithm},
                                   {"group", c.group},
                                   {"group_size", c.group_size},
                                   {"message_bytes", c.message_bytes},
                                   {"bytes_sent_per_rank", c.bytes_sent_per_rank},
                                   {"ready_s", c.ready_s},
                                   {"issue_s", c.issue_s},
                                   {"finish_s", c.finish_s}});
  }
  return json;
}

}  // namespace roofsim
