#include "sim/report/diff_writers.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "sim/report/html_page.h"

namespace roofsim {

namespace {

using Json = nlohmann::ordered_json;

std::string optional_text(const std::optional<double>& value, double scale) {
  return value && std::isfinite(*value) ? fmt::format("{:.4g}", *value * scale) : "-";
}

std::string ratio_text(const std::optional<double>& ratio) {
  return ratio ? fmt::format("x{:.3g}", *ratio) : "-";
}

Json optional_json(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? Json(*value) : Json(nullptr);
}

Json side_json(const ResultFigures& side) {
  return {{"source", side.source},
          {"command", side.command},
          {"hardware", side.hardware},
          {"workload", side.workload},
          {"total_sim_time_s", optional_json(side.total_sim_time_s)}};
}

std::string change_text(const OpChange& op) {
  if (op.presence != OpPresence::both) return to_string(op.presence);
  return op.bound_changed() ? op.bound_by_a + " -> " + op.bound_by_b : "";
}

}  // namespace

void write_diff_table(const ResultDiff& diff, std::ostream& out) {
  out << fmt::format("A: {} ({} on {}), B: {} ({} on {})\n", diff.a.source, diff.a.workload, diff.a.hardware,
                     diff.b.source, diff.b.workload, diff.b.hardware);
  out << fmt::format(
      "total simulated: {} us -> {} us ({}); {} ops in both, {} with another bound, {} added, {} "
      "removed\n",
      optional_text(diff.a.total_sim_time_s, 1e6), optional_text(diff.b.total_sim_time_s, 1e6),
      ratio_text(diff.total_time_ratio()), diff.count(OpPresence::both), diff.bound_changes(),
      diff.count(OpPresence::added), diff.count(OpPresence::removed));

  std::vector<std::string> header = {"op", "kind", "time A", "time B", "time B/A"};
  std::vector<std::string> units = {"", "", "us", "us", ""};
  for (const auto& level : diff.levels) {
    header.push_back("bytes " + level + " B/A");
    units.emplace_back("");
  }
  header.emplace_back("change");
  units.emplace_back("");
  std::vector<std::vector<std::string>> rows;
  for (const auto& op : diff.ops) {
    std::vector<std::string> row = {op.name, op.kind, optional_text(op.time_a_s, 1e6), optional_text(op.time_b_s, 1e6),
                                    ratio_text(op.time_ratio())};
    for (const auto& level : op.bytes) row.push_back(ratio_text(level.ratio()));
    row.push_back(change_text(op));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> widths(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    widths[c] = std::max(header[c].size(), units[c].size());
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      const bool left = c < 2 || c + 1 == cells.size();
      line += left ? fmt::format("{:<{}}", cells[c], widths[c]) : fmt::format("{:>{}}", cells[c], widths[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  print_row(header);
  print_row(units);
  std::size_t total_width = 0;
  for (const auto width : widths) total_width += width + 2;
  out << std::string(total_width - 2, '-') << "\n";
  for (const auto& row : rows) print_row(row);
}

Json diff_page_data(const ResultDiff& diff) {
  Json data;
  data["page"] = "diff";
  data["a"] = side_json(diff.a);
  data["b"] = side_json(diff.b);
  data["levels"] = diff.levels;
  data["total_time_ratio"] = optional_json(diff.total_time_ratio());
  data["counts"] = {{"both", diff.count(OpPresence::both)},
                    {"added", diff.count(OpPresence::added)},
                    {"removed", diff.count(OpPresence::removed)},
                    {"bound_changes", diff.bound_changes()}};
  Json ops = Json::array();
  for (const auto& op : diff.ops) {
    Json bytes = Json::array();
    for (const auto& level : op.bytes) {
      bytes.push_back(Json::array({level.a ? Json(*level.a) : Json(nullptr), level.b ? Json(*level.b) : Json(nullptr),
                                   optional_json(level.ratio())}));
    }
    ops.push_back({{"name", op.name},
                   {"kind", op.kind},
                   {"presence", to_string(op.presence)},
                   {"time_a_s", optional_json(op.time_a_s)},
                   {"time_b_s", optional_json(op.time_b_s)},
                   {"time_ratio", optional_json(op.time_ratio())},
                   {"bytes", bytes},
                   {"bound_by_a", op.bound_by_a},
                   {"bound_by_b", op.bound_by_b},
                   {"bound_changed", op.bound_changed()}});
  }
  data["ops"] = ops;
  return data;
}

void write_diff_html(const ResultDiff& diff, std::ostream& out) {
  write_html_page("diff: " + diff.a.source + " -> " + diff.b.source,
                  "roofsim diff: per-op simulated time, bytes per level and bound, B against A", diff_page_data(diff),
                  out);
}

}  // namespace roofsim
