#include "sim/report/gap_columns.h"

#include <fmt/format.h>

namespace roofsim {

namespace {

const nlohmann::ordered_json* gap_of(const OpReport& op) {
  const auto it = op.extra.find("gap");
  return it == op.extra.end() || !it->is_object() ? nullptr : &*it;
}

}  // namespace

std::vector<std::string> gap_csv_columns(const Report& report) {
  for (const auto& op : report.ops) {
    const auto* gap = gap_of(op);
    if (gap == nullptr) continue;
    std::vector<std::string> columns = {"gap_ceiling_time_s", "gap_sim_time_s", "gap_s"};
    for (const auto& [name, value] : gap->at("causes_s").items()) columns.push_back("gap_" + name + "_s");
    return columns;
  }
  return {};
}

std::string gap_csv_cells(const OpReport& op, const std::vector<std::string>& columns) {
  std::string cells;
  const auto* gap = gap_of(op);
  for (const auto& column : columns) {
    cells += ',';
    if (gap == nullptr) continue;
    double value = 0;
    if (column == "gap_ceiling_time_s") {
      value = gap->at("ceiling_time_s").get<double>();
    } else if (column == "gap_sim_time_s") {
      value = gap->at("sim_time_s").get<double>();
    } else if (column == "gap_s") {
      value = gap->at("gap_s").get<double>();
    } else {
      const auto name = column.substr(4, column.size() - 6);
      const auto& causes = gap->at("causes_s");
      if (!causes.contains(name)) continue;
      value = causes.at(name).get<double>();
    }
    cells += fmt::format("{:.9g}", value);
  }
  return cells;
}

}  // namespace roofsim
