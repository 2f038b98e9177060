#include "sim/report/cluster_writers.h"

#include <ostream>
#include <string>

#include <fmt/format.h>

#include "sim/report/console_table.h"
#include "sim/results/cluster_report.h"
#include "sim/results/gap_attribution.h"

namespace roofsim {

void write_cluster_table(const ClusterRunResult& result, const std::vector<Report>& rank_reports, std::ostream& out) {
  out << "\n"
      << wrap_words(fmt::format("cluster {}: {} ranks; {}", result.cluster, result.ranks, result.symmetry),
                    kConsoleColumns, "  ")
      << "\n";
  const auto fixed = [](double value, int digits) { return fmt::format("{:.{}f}", value, digits); };
  std::vector<std::vector<std::string>> rank_rows;
  for (std::size_t i = 0; i < result.simulated.size(); ++i) {
    const auto& rank = result.simulated[i];
    const auto& step = step_row(rank_reports[i]);
    const double oi_net = step.network_bytes == 0
                              ? 0.0
                              : static_cast<double>(step.useful_flops) / static_cast<double>(step.network_bytes);
    rank_rows.push_back(
        {rank.represents > 1 ? fmt::format("{} (x{})", rank.rank, rank.represents) : std::to_string(rank.rank),
         fixed(rank.step.step_s * 1e6, 3), fixed(rank.step.compute_s * 1e6, 3),
         fixed(rank.step.communication_s * 1e6, 3), fixed(rank.step.exposed_communication_s * 1e6, 3), fixed(oi_net, 1),
         fixed(step.achieved_flops_per_s.value_or(0) / 1e12, 2),
         fixed(step.roofline.ceilings.comm.flops_per_s / 1e12, 2), fixed(step.attainable_flops_per_s() / 1e12, 2),
         step.roofline.bound_by});
  }
  print_table({{"rank", "", true},
               {"step", "us"},
               {"compute", "us"},
               {"comm", "us"},
               {"exposed", "us"},
               {"OI_net", "FLOP/B"},
               {"achieved", "TFLOP/s"},
               {"comm_ceil", "TFLOP/s"},
               {"binding", "TFLOP/s"},
               {"bound_by", "", true}},
              rank_rows, out);
  out << "\nstep gap to the binding ceiling by cause, us (the causes add up to the gap)\n";
  std::vector<std::vector<std::string>> gap_rows;
  for (std::size_t i = 0; i < result.simulated.size(); ++i) {
    const auto& rank = result.simulated[i];
    const auto gap = step_gap(step_row(rank_reports[i]), rank.step);
    std::vector<std::string> row = {std::to_string(rank.rank), fixed(gap.ceiling_time_s * 1e6, 3),
                                    fixed(gap.sim_time_s * 1e6, 3), fixed(gap.gap_s * 1e6, 3)};
    for (const auto& cause : gap.causes) row.push_back(fixed(cause.seconds * 1e6, 3));
    gap_rows.push_back(std::move(row));
  }
  print_table({{"rank", "", true},
               {"ceiling", "us"},
               {"step", "us"},
               {"gap", "us"},
               {"compute", "us"},
               {"exposed_comm", "us"},
               {"deps_launch", "us"},
               {"ahead", "us"},
               {"unattributed", "us"}},
              gap_rows, out);
  out << fmt::format("\ncollectives ({} issued, {} replayed from a record, {} network events)\n",
                     result.collectives.size(), result.collectives_replayed, result.network_events);
  std::vector<std::vector<std::string>> collective_rows;
  for (const auto& c : result.collectives) {
    // One line per op for collectives over many groups: the first group stands for the rest when symmetric.
    if (c.group != 0 && result.symmetric) continue;
    collective_rows.push_back({c.name, std::to_string(c.group), std::to_string(c.group_size),
                               std::to_string(c.message_bytes), std::to_string(c.bytes_sent_per_rank),
                               fixed(c.ready_s * 1e6, 3), fixed(c.issue_s * 1e6, 3), fixed(c.finish_s * 1e6, 3),
                               fixed((c.finish_s - c.issue_s) * 1e6, 3), c.algorithm});
  }
  std::vector<TableColumn> collective_columns = {
      {"op", "", true}, {"group", ""},   {"ranks", ""},    {"bytes", "B"}, {"sent/rank", "B"},
      {"ready", "us"},  {"issue", "us"}, {"finish", "us"}, {"time", "us"}, {"algorithm", "", true}};
  // The op names take what the other columns leave of the line.
  const auto widths = column_widths(collective_columns, collective_rows);
  const std::size_t others = table_width(widths) - widths.front();
  const std::size_t name_width = kConsoleColumns > others + 12 ? kConsoleColumns - others : 12;
  for (auto& row : collective_rows) row.front() = fitted(row.front(), name_width);
  print_table(collective_columns, collective_rows, out);
  if (collective_rows.size() < result.collectives.size()) {
    out << fmt::format("({} more groups finished with group 0)\n", result.collectives.size() - collective_rows.size());
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
  json["collectives_replayed"] = result.collectives_replayed;
  json["collectives_resumed"] = result.collectives_resumed;
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
