#include "sim/report/gap_columns.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

namespace roofsim {

namespace {

// Every cause the run and cluster reports attribute (sim/results/run_report.cpp op_gap, cluster_report.cpp), in the
// order of the causes of a single-device run.
constexpr std::array<std::string_view, 17> kCauses = {"compute",
                                                      "latency",
                                                      "bandwidth_queueing",
                                                      "tail",
                                                      "dependencies_dispatch",
                                                      "launch",
                                                      "vector",
                                                      "special_function",
                                                      "other_engines",
                                                      "dram_row_misses",
                                                      "dram_refresh",
                                                      "dram_turnarounds",
                                                      "throttling",
                                                      "exposed_communication",
                                                      "overlapped_communication",
                                                      "dependencies_launch",
                                                      "ahead_of_ceiling"};

const nlohmann::ordered_json* gap_of(const OpReport& op) {
  const auto it = op.extra.find("gap");
  return it == op.extra.end() || !it->is_object() ? nullptr : &*it;
}

std::string cell(double value) {
  return fmt::format(",{:.9g}", value == 0.0 ? 0.0 : value);
}

}  // namespace

const std::vector<std::string>& gap_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names = {"gap_ceiling_time_s", "gap_sim_time_s", "gap_s"};
    for (const auto cause : kCauses) names.push_back("gap_" + std::string(cause) + "_s");
    names.emplace_back("gap_unattributed_s");
    return names;
  }();
  return columns;
}

std::string gap_csv_cells(const OpReport& op) {
  const auto* gap = gap_of(op);
  if (gap == nullptr) return std::string(gap_csv_columns().size(), ',');
  std::string cells = cell(gap->at("ceiling_time_s").get<double>()) + cell(gap->at("sim_time_s").get<double>()) +
                      cell(gap->at("gap_s").get<double>());
  const auto& causes = gap->at("causes_s");
  double other_engines = 0;
  for (const auto& [name, value] : causes.items()) {
    const bool listed = std::find(kCauses.begin(), kCauses.end(), name) != kCauses.end() || name == "unattributed";
    if (!listed) other_engines += value.get<double>();
  }
  for (const auto cause : kCauses) {
    const std::string name(cause);
    if (name == "other_engines") {
      cells += cell(other_engines);
    } else {
      cells += cell(causes.contains(name) ? causes.at(name).get<double>() : 0.0);
    }
  }
  cells += cell(causes.contains("unattributed") ? causes.at("unattributed").get<double>() : 0.0);
  return cells;
}

}  // namespace roofsim
