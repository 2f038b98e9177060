#include "sim/report/cluster_writers.h"

#include <ostream>
#include <string>

#include <fmt/format.h>

#include "sim/results/cluster_report.h"
#include "sim/results/gap_attribution.h"

namespace roofsim {

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
