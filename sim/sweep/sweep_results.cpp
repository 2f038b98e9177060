#include "sim/sweep/sweep_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "sim/core/output_file.h"

namespace roofsim {

namespace {

constexpr const char* kManifestFile = "sweep.json";
// A point's report.json grows with its ops; this is far above a real one.
constexpr std::uintmax_t kMaxPointReportBytes = std::uintmax_t{1} << 30;

std::string scale_name(AxisScale scale) {
  switch (scale) {
    case AxisScale::linear: return "linear";
    case AxisScale::log: return "log";
    case AxisScale::category: return "category";
  }
  return "linear";
}

AxisScale scale_from_name(const std::string& name) {
  if (name == "log") return AxisScale::log;
  if (name == "category") return AxisScale::category;
  return AxisScale::linear;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Numbers as report.json holds them, in the shortest text that reads back to the same double.
std::string cell_text(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());
  return value.dump();
}

std::optional<double> cell_number(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  return std::nullopt;
}

bool is_extensive(const std::string& metric) {
  return metric == "useful_flops" || metric == "executed_flops" || metric == "network_bytes" ||
         metric == "roofline_time_s" || metric.rfind("bytes.", 0) == 0;
}

std::string first_line_of(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

}  // namespace

nlohmann::ordered_json sweep_manifest(const SweepSpec& spec) {
  nlohmann::ordered_json manifest;
  manifest["name"] = spec.name;
  manifest["description"] = spec.description;
  manifest["mode"] = spec.mode;
  manifest["hardware"] = spec.hardware;
  manifest["workload"] = spec.workload;
  if (!spec.model.empty()) manifest["model"] = spec.model;
  auto& sets = manifest["set"] = nlohmann::ordered_json::array();
  for (const auto& entry : spec.base_overrides) sets.push_back(override_text(entry));
  manifest["combine"] = spec.combine == SweepCombine::zip ? "zip" : "grid";
  auto& axes = manifest["axes"] = nlohmann::ordered_json::array();
  for (const auto& axis : spec.axes) {
    axes.push_back(
        {{"key", axis.key}, {"label", axis.label}, {"scale", scale_name(axis.scale)}, {"values", axis.values}});
    if (!axis.files.empty()) axes.back()["files"] = axis.files;
  }
  manifest["metrics"] = spec.metrics;
  manifest["chart"] = {{"metric", spec.chart_metric},
                       {"op", spec.chart_op},
                       {"y_scale", spec.chart_y_scale ? scale_name(*spec.chart_y_scale) : "auto"}};
  if (spec.uses_design()) {
    auto& design = manifest["design"] = nlohmann::ordered_json::object();
    if (spec.trade) design["trade"] = {{"give", spec.trade->give}, {"take", spec.trade->take}, {"at", spec.trade->at}};
    auto& constraints = design["constraint"] = nlohmann::ordered_json::array();
    for (const auto& constraint : spec.constraints) constraints.push_back(constraint.text);
    design["pareto"] = spec.pareto;
  }
  manifest["points"] = expand_points(spec).size();
  return manifest;
}

SweepSpec spec_from_manifest(const nlohmann::ordered_json& manifest) {
  SweepSpec spec;
  try {
    spec.name = manifest.at("name").get<std::string>();
    spec.description = manifest.at("description").get<std::string>();
    spec.mode = manifest.at("mode").get<std::string>();
    spec.hardware = manifest.at("hardware").get<std::string>();
    spec.workload = manifest.at("workload").get<std::string>();
    spec.model = manifest.value("model", std::string());
    for (const auto& text : manifest.at("set")) {
      const auto entry = text.get<std::string>();
      const auto equals = entry.find('=');
      spec.base_overrides.push_back(Override{entry.substr(0, equals), entry.substr(equals + 1)});
    }
    spec.combine = manifest.at("combine").get<std::string>() == "zip" ? SweepCombine::zip : SweepCombine::grid;
    for (const auto& axis : manifest.at("axes")) {
      spec.axes.push_back(SweepAxis{axis.at("key").get<std::string>(),
                                    axis.at("label").get<std::string>(),
                                    axis.at("values").get<std::vector<std::string>>(),
                                    scale_from_name(axis.at("scale").get<std::string>()),
                                    {},
                                    {},
                                    axis.value("files", std::vector<std::string>{})});
      const auto& added = spec.axes.back();
      if ((added.key == kHardwareAxisKey || added.key == kWorkloadAxisKey || added.key == kModelAxisKey) &&
          added.files.size() != added.values.size()) {
        throw InputError(SourcePos{kManifestFile},
                         "not a sweep manifest: the " + added.key + " axis needs a file for each of its values");
      }
    }
    spec.metrics = manifest.at("metrics").get<std::vector<std::string>>();
    const auto& chart = manifest.at("chart");
    spec.chart_metric = chart.at("metric").get<std::string>();
    spec.chart_op = chart.at("op").get<std::string>();
    const auto y_scale = chart.at("y_scale").get<std::string>();
    if (y_scale != "auto") spec.chart_y_scale = scale_from_name(y_scale);
    if (manifest.contains("design")) {
      const auto& design = manifest.at("design");
      if (design.contains("trade")) {
        const auto& trade = design.at("trade");
        spec.trade = SweepTrade{trade.at("give").get<std::string>(), trade.at("take").get<std::string>(),
                                trade.at("at").get<std::string>()};
      }
      for (const auto& text : design.at("constraint")) {
        std::string problem;
        const auto constraint = parse_constraint(text.get<std::string>(), problem);
        if (!constraint) throw InputError(SourcePos{kManifestFile}, "not a sweep manifest: constraint " + problem);
        spec.constraints.push_back(*constraint);
      }
      spec.pareto = design.at("pareto").get<std::vector<std::string>>();
    }
  } catch (const nlohmann::json::exception& error) {
    throw InputError(SourcePos{kManifestFile}, std::string("not a sweep manifest: ") + error.what());
  }
  return spec;
}

std::string manifest_fingerprint(const nlohmann::ordered_json& manifest) {
  // Paths of the hardware and workload may differ between the machines of a cluster; the points may not.
  nlohmann::ordered_json same;
  for (const char* key : {"mode", "set", "combine", "axes", "metrics", "points", "design"}) {
    if (manifest.contains(key)) same[key] = manifest[key];
  }
  if (same.contains("axes") && same["axes"].is_array()) {
    for (auto& axis : same["axes"]) {
      if (axis.is_object()) axis.erase("files");
    }
  }
  return same.dump();
}

nlohmann::ordered_json read_manifest(const std::filesystem::path& dir) {
  const auto file = dir / kManifestFile;
  if (!std::filesystem::exists(file)) {
    throw InputError(SourcePos{dir.string()}, "no sweep.json here: not the output folder of `roofsim sweep`");
  }
  check_input_file(file, "sweep manifest", kMaxConfigFileBytes);
  try {
    return nlohmann::ordered_json::parse(read_text(file));
  } catch (const nlohmann::json::exception& error) {
    throw InputError(SourcePos{file.string()}, std::string("not a sweep manifest: ") + error.what());
  }
}

void write_or_check_manifest(const SweepSpec& spec, const std::filesystem::path& dir) {
  const auto manifest = sweep_manifest(spec);
  if (std::filesystem::exists(dir / kManifestFile)) {
    const auto existing = read_manifest(dir);
    if (manifest_fingerprint(existing) != manifest_fingerprint(manifest)) {
      throw InputError(SourcePos{(dir / kManifestFile).string()},
                       "this folder holds the results of a different sweep (other axes, values, overrides, mode "
                       "or metrics); choose another --out or delete the folder");
    }
    if (existing == manifest) return;
  }
  // Written whole under its name (output_file.h), so that shards writing it at once leave one complete copy.
  write_output_file(dir / kManifestFile, [&](std::ostream& out) { out << manifest.dump(2) << "\n"; });
}

std::string point_dir_name(std::size_t index, std::size_t point_count) {
  const std::size_t width = std::max<std::size_t>(4, std::to_string(point_count > 0 ? point_count - 1 : 0).size());
  return fmt::format("p{:0{}}", index, width);
}

std::filesystem::path point_dir(const std::filesystem::path& dir, std::size_t index, std::size_t point_count) {
  return dir / "points" / point_dir_name(index, point_count);
}

std::string point_definition(const SweepSpec& spec, const SweepPoint& point) {
  std::string text = "mode " + spec.mode + "\nhardware " + point.hardware + "\n" +
                     (point.model.empty() ? "workload " + point.workload : "model " + point.model) + "\n";
  for (const auto& entry : point.overrides) text += "set " + override_text(entry) + "\n";
  for (const auto& metric : spec.metrics) text += "metric " + metric + "\n";
  return text;
}

bool point_done(const std::filesystem::path& point_folder, const std::string& definition) {
  const auto marker = point_folder / "done";
  return std::filesystem::exists(marker) && read_text(marker) == definition;
}

nlohmann::json op_metric(const nlohmann::json& op, const std::string& metric) {
  if (metric == "attainable_flops_per_s" || metric == "roofline_time_s") {
    const auto binding = op.value("binding", std::string());
    if (!op.contains("ceilings") || !op["ceilings"].contains(binding)) return nullptr;
    const double attainable = op["ceilings"][binding].get<double>();
    if (metric == "attainable_flops_per_s") return attainable;
    if (!(attainable > 0) || !op.contains("useful_flops")) return nullptr;
    return op["useful_flops"].get<double>() / attainable;
  }
  const nlohmann::json* node = &op;
  std::size_t start = 0;
  while (start <= metric.size()) {
    const auto dot = metric.find('.', start);
    const auto part = metric.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return *node;
}

OpRow total_row(const nlohmann::json& report, const std::vector<std::string>& metrics) {
  OpRow row;
  row.op = "total";
  const auto& ops = report.at("ops");
  double flops = 0, roofline_time_s = 0;
  for (const auto& op : ops) {
    flops += op.value("useful_flops", 0.0);
    const auto time = op_metric(op, "roofline_time_s");
    if (time.is_number()) roofline_time_s += time.get<double>();
  }
  const nlohmann::json sim_time_s =
      report.contains("total") && report["total"].contains("sim_time_s") ? report["total"]["sim_time_s"] : nullptr;
  for (const auto& metric : metrics) {
    nlohmann::json value = nullptr;
    if (metric == "sim_time_s") {
      value = sim_time_s;
    } else if (metric == "achieved_flops_per_s") {
      if (sim_time_s.is_number() && sim_time_s.get<double>() > 0) value = flops / sim_time_s.get<double>();
    } else if (metric == "attainable_flops_per_s") {
      if (roofline_time_s > 0) value = flops / roofline_time_s;
    } else if (is_extensive(metric)) {
      // Integers stay integers (FLOPs and bytes), so the total is exact.
      bool all_integer = true, any = false;
      std::uint64_t integer_sum = 0;
      double real_sum = 0;
      for (const auto& op : ops) {
        const auto part = op_metric(op, metric);
        if (!part.is_number()) continue;
        any = true;
        if (part.is_number_unsigned()) {
          integer_sum += part.get<std::uint64_t>();
        } else {
          all_integer = false;
        }
        real_sum += part.get<double>();
      }
      if (any) value = all_integer ? nlohmann::json(integer_sum) : nlohmann::json(real_sum);
    }
    row.cells.push_back(cell_text(value));
    row.numbers.push_back(cell_number(value));
  }
  return row;
}

PointResult collect_point(const SweepSpec& spec, const SweepPoint& point,
                          const std::vector<std::filesystem::path>& dirs) {
  PointResult result;
  result.index = point.index;
  if (!point.dropped_by.empty()) {
    result.status = PointStatus::dropped;
    result.error = point.dropped_by;
    return result;
  }
  const auto count = static_cast<std::size_t>(point_count(spec));
  std::optional<std::filesystem::path> failed_folder;
  for (const auto& dir : dirs) {
    const auto folder = point_dir(dir, point.index, count);
    if (std::filesystem::exists(folder / "done")) {
      const auto report_file = folder / "report.json";
      if (!is_acceptable_input_file(report_file, kMaxPointReportBytes)) {
        result.status = PointStatus::failed;
        result.error = "report.json is missing or not a regular file";
        return result;
      }
      try {
        result.report = nlohmann::json::parse(read_text(report_file));
        for (const auto& op : result.report.at("ops")) {
          OpRow row;
          row.op = op.value("name", std::string());
          for (const auto& metric : spec.metrics) {
            const auto value = op_metric(op, metric);
            row.cells.push_back(cell_text(value));
            row.numbers.push_back(cell_number(value));
          }
          result.rows.push_back(std::move(row));
        }
        result.total = total_row(result.report, spec.metrics);
      } catch (const nlohmann::json::exception& error) {
        // Not JSON, or JSON of another shape than report.json's: the point failed, the others are still collected.
        result.rows.clear();
        result.status = PointStatus::failed;
        result.error = std::string("unreadable report.json: ") + error.what();
        return result;
      }
      result.status = PointStatus::ok;
      return result;
    }
    if (!failed_folder && std::filesystem::exists(folder / "error.txt")) failed_folder = folder;
  }
  if (failed_folder) {
    result.status = PointStatus::failed;
    result.error = first_line_of(read_text(*failed_folder / "error.txt"));
  }
  return result;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string pareto_group(const SweepSpec& spec, const SweepPoint& point) {
  std::string group;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    if (spec.axes[a].key.rfind(kWorkloadAxisKey, 0) == 0 || spec.axes[a].key == kModelAxisKey) {
      group += point.values[a] + "\n";
    }
  }
  return group;
}

std::vector<bool> pareto_marks(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const std::vector<PointResult>& results) {
  std::vector<bool> marks(points.size(), false);
  if (spec.pareto.empty()) return marks;
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < points.size(); ++i) groups[pareto_group(spec, points[i])].push_back(i);
  for (const auto& [group, members] : groups) {
    std::vector<std::vector<std::optional<double>>> objectives(members.size());
    for (std::size_t m = 0; m < members.size(); ++m) {
      const auto i = members[m];
      if (results[i].status != PointStatus::ok || !points[i].design) continue;
      for (const auto& objective : spec.pareto) {
        std::optional<double> value;
        if (objective == "area") {
          value = points[i].design->area_mm2;
        } else if (objective == "cost") {
          value = points[i].design->cost_usd;
        } else if (objective == "tdp") {
          value = points[i].design->tdp_w;
        } else {
          const auto metric = std::find(spec.metrics.begin(), spec.metrics.end(), objective) - spec.metrics.begin();
          value = results[i].total.numbers.at(static_cast<std::size_t>(metric));
        }
        objectives[m].push_back(value);
      }
    }
    const auto front = pareto_front(objectives);
    for (std::size_t m = 0; m < members.size(); ++m) marks[members[m]] = front[m];
  }
  return marks;
}

namespace {

std::string status_text(PointStatus status) {
  switch (status) {
    case PointStatus::ok: return "ok";
    case PointStatus::failed: return "failed";
    case PointStatus::dropped: return "dropped";
    case PointStatus::missing: return "missing";
  }
  return "missing";
}

// The columns a point's rows start with (its index, the axis values, the trade's `take` value and the design figures),
// and per point the cells of those columns.
std::string point_header(const SweepSpec& spec) {
  std::string header = "point";
  for (const auto& axis : spec.axes) header += "," + csv_field(axis.label);
  if (spec.trade) header += "," + csv_field(spec.trade->take);
  if (spec.uses_design()) header += ",area_mm2,filler_mm2,cost_usd,tdp_w,pareto";
  return header;
}

std::vector<std::string> point_prefixes(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                        const std::vector<PointResult>& results) {
  const bool design = spec.uses_design();
  const auto pareto = pareto_marks(spec, points, results);
  std::vector<std::string> prefixes;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& point = points[i];
    std::string prefix = std::to_string(point.index);
    for (const auto& value : point.values) prefix += "," + csv_field(value);
    if (spec.trade) prefix += "," + csv_field(point.take_value);
    if (design && point.design) {
      const auto& f = *point.design;
      prefix += fmt::format(",{:.3f},{:.3f},{:.0f},{:.1f},{}", f.area_mm2, f.filler_mm2, f.cost_usd, f.tdp_w,
                            pareto[i] ? "yes" : "no");
    } else if (design) {
      prefix += ",,,,,";
    }
    prefixes.push_back(std::move(prefix));
  }
  return prefixes;
}

// The header line: the point's columns, `middle`, the metrics and the error.
std::string csv_header(const SweepSpec& spec, const std::string& middle) {
  std::string header = point_header(spec) + middle;
  for (const auto& metric : spec.metrics) header += "," + csv_field(metric);
  return header + ",error\n";
}

void write_metric_cells(const OpRow& row, std::ostream& out) {
  for (const auto& cell : row.cells) out << "," << csv_field(cell);
}

}  // namespace

void write_sweep_csv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                     const std::vector<PointResult>& results, std::ostream& out) {
  out << csv_header(spec, ",op,status");
  const auto prefixes = point_prefixes(spec, points, results);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& result = results[i];
    if (result.status != PointStatus::ok) {
      out << prefixes[i] << ",," << status_text(result.status) << std::string(spec.metrics.size(), ',') << ","
          << csv_field(result.error) << "\n";
      continue;
    }
    for (const auto& row : result.rows) {
      out << prefixes[i] << "," << csv_field(row.op) << ",ok";
      write_metric_cells(row, out);
      out << ",\n";
    }
  }
}

void write_sweep_totals_csv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                            const std::vector<PointResult>& results, std::ostream& out) {
  out << csv_header(spec, ",status");
  const auto prefixes = point_prefixes(spec, points, results);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& result = results[i];
    out << prefixes[i] << "," << status_text(result.status);
    if (result.status == PointStatus::ok) {
      write_metric_cells(result.total, out);
    } else {
      out << std::string(spec.metrics.size(), ',');
    }
    out << "," << csv_field(result.error) << "\n";
  }
}

}  // namespace roofsim
