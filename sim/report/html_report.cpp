#include "sim/report/html_report.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/output_file.h"
#include "sim/report/html_page.h"

namespace roofsim {

namespace {

using Json = nlohmann::ordered_json;

Json finite_or_null(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

Json optional_number(const std::optional<double>& value) {
  return value ? finite_or_null(*value) : Json(nullptr);
}

// The gap a run's report carries per op (run_report.h op_gap): the ceiling's time, the gap and its causes in order.
Json gap_of(const OpReport& op) {
  const auto found = op.extra.find("gap");
  if (found == op.extra.end() || !found->is_object()) return nullptr;
  const auto& gap = *found;
  Json causes = Json::array();
  if (gap.contains("causes_s") && gap["causes_s"].is_object()) {
    for (const auto& [name, seconds] : gap["causes_s"].items()) {
      if (seconds.is_number()) causes.push_back(Json::array({name, seconds}));
    }
  }
  const auto number = [&](const char* key) { return gap.contains(key) ? gap[key] : Json(nullptr); };
  return {{"ceiling_time_s", number("ceiling_time_s")}, {"gap_s", number("gap_s")}, {"causes", causes}};
}

Json op_data(const Report& report, const OpReport& op) {
  Json entry;
  entry["name"] = op.name;
  entry["kind"] = op.kind;
  entry["dtype"] = std::string(to_string(op.dtype));
  entry["engine"] = op.engine;
  entry["useful_flops"] = op.useful_flops;
  entry["main_bytes"] = op.bytes_at(report.main_memory);
  entry["x"] = finite_or_null(op.oi_at(report.main_memory));
  entry["y"] = finite_or_null(op.chart_flops_per_s());
  entry["ceiling_y"] = finite_or_null(op.attainable_flops_per_s());
  Json ceilings = Json::array();
  Json bound_by = Json::array();
  for (const auto variant : kAllVariants) {
    ceilings.push_back(finite_or_null(op.roofline.ceilings[variant].flops_per_s));
    bound_by.push_back(op.roofline.ceilings[variant].bound_by);
  }
  entry["ceilings"] = ceilings;
  entry["ceiling_bound_by"] = bound_by;
  entry["binding"] = std::string(to_string(op.roofline.binding));
  entry["bound_by"] = op.roofline.bound_by;
  entry["sim_time_s"] = optional_number(op.sim_time_s);
  entry["achieved_flops_per_s"] = optional_number(op.achieved_flops_per_s);
  const auto efficiency = op.extra.find("efficiency");
  entry["efficiency"] = efficiency != op.extra.end() && efficiency->is_number() ? *efficiency : Json(nullptr);
  entry["energy_j"] = optional_number(op.energy_j);
  entry["gap"] = gap_of(op);
  return entry;
}

std::string read_whole(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const auto byte = [&](std::size_t k) {
      return k < bytes.size() ? static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])) : 0U;
    };
    const std::uint32_t group = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += kDigits[(group >> 18) & 63];
    out += kDigits[(group >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(group >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[group & 63] : '=';
  }
  return out;
}

}  // namespace

Json report_page_data(const Report& report) {
  Json data;
  data["page"] = "report";
  data["command"] = report.command;
  data["complete"] = report.complete;
  data["hardware"] = report.hardware_name;
  data["workload"] = report.workload_name;
  data["main_memory"] = report.main_memory;
  data["levels"] = report.levels;
  Json variants = Json::array();
  for (const auto variant : kAllVariants) variants.push_back(std::string(to_string(variant)));
  data["variants"] = variants;
  Json compute = Json::array();
  Json bandwidth = Json::array();
  Json ridges = Json::array();
  if (report.roofs) {
    for (const auto& line : report.roofs->compute) {
      compute.push_back({{"label", line.label()}, {"peak_flops_per_s", line.peak_flops_per_s}});
    }
    for (const auto& line : report.roofs->bandwidth) {
      bandwidth.push_back({{"name", line.name}, {"bytes_per_s", line.bandwidth_bytes_per_s}});
    }
    for (const auto& ridge : report.roofs->ridges) {
      ridges.push_back({{"compute", ridge.compute_label}, {"oi", finite_or_null(ridge.oi)}});
    }
  }
  data["compute_lines"] = compute;
  data["bandwidth_lines"] = bandwidth;
  data["ridges"] = ridges;
  Json ops = Json::array();
  for (const auto& op : report.ops) ops.push_back(op_data(report, op));
  data["ops"] = ops;
  data["total_sim_time_s"] = optional_number(report.total_sim_time_s);
  return data;
}

void write_report_html(const Report& report, std::ostream& out) {
  std::string subtitle = "roofsim " + report.command + ": " + std::to_string(report.ops.size()) + " ops, " +
                         report.bytes_basis + " bytes, operational intensity at " + report.main_memory;
  if (report.total_sim_time_s) subtitle += fmt::format(", {:.4g} us simulated", *report.total_sim_time_s * 1e6);
  if (!report.complete) subtitle += " (interrupted: the finished ops only)";
  write_html_page(report.workload_name + " on " + report.hardware_name, subtitle, report_page_data(report), out);
}

void write_report_html_file(const Report& report, const std::filesystem::path& dir) {
  write_output_file(dir / "report.html", [&](std::ostream& out) { write_report_html(report, out); });
}

void write_sweep_html(const std::string& name, const std::filesystem::path& dir, std::ostream& out) {
  Json data;
  data["page"] = "sweep";
  data["name"] = name;
  Json charts = Json::array();
  for (const char* file : {"sweep.svg", "sweep_roofline.svg"}) {
    // The charts as images, not inline SVG: each keeps its own ids (clip paths, markers) without clashing.
    if (std::filesystem::is_regular_file(dir / file)) {
      charts.push_back({{"file", file}, {"data_uri", "data:image/svg+xml;base64," + base64(read_whole(dir / file))}});
    }
  }
  data["charts"] = charts;
  const auto csv_text = [&](const char* file) {
    return std::filesystem::is_regular_file(dir / file) ? read_whole(dir / file) : std::string();
  };
  data["csv"] = csv_text("sweep.csv");
  data["totals_csv"] = csv_text("sweep_totals.csv");
  write_html_page("sweep " + name, "roofsim sweep: its charts, sweep_totals.csv and sweep.csv", data, out);
}

}  // namespace roofsim

namespace roofsim {

void write_sweep_html_file(const std::string& name, const std::filesystem::path& dir) {
  write_output_file(dir / "report.html", [&](std::ostream& out) { write_sweep_html(name, dir, out); });
}

}  // namespace roofsim
