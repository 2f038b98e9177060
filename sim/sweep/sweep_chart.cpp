#include "sim/sweep/sweep_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include "sim/config/cluster_params.h"
#include "sim/config/config_document.h"
#include "sim/config/data_paths.h"
#include "sim/config/hardware_params.h"
#include "sim/config/quantity.h"
#include "sim/core/output_file.h"
#include "sim/report/label_placer.h"
#include "sim/report/svg_chart.h"
#include "sim/report/svg_primitives.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

namespace {

constexpr double kWidth = 920;
constexpr double kTitleHeight = 56;
constexpr double kPanelHeight = 340;
constexpr double kPlotLeft = 110, kPlotTop = 24, kPlotHeight = 250;
// The plot takes the width the legend leaves (all of it without a legend); a legend is at most this wide.
constexpr double kMaxLegendWidth = 300;
constexpr double kFontPx = 12, kSmallFontPx = 10.5;
// More x labels than this crowd the axis; then every k-th value is labelled.
constexpr std::size_t kMaxXLabels = 12;
// Legend rows beside a panel: these entries, "+N more" and the reference line fit the plot's height.
constexpr std::size_t kMaxLegendEntries = 11;

// Okabe and Ito's (2008) colour-blind-safe palette and four of Paul Tol's muted colours: 12 distinct colours; past
// them a series differs from the one 12 before it by its dash pattern.
const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                "#000000", "#8C6D1F", "#882255", "#44AA99", "#999933", "#AA4499"};
constexpr std::size_t kColourCount = sizeof(kColours) / sizeof(kColours[0]);
const char* const kDashes[] = {"", "6 3", "2 3", "8 3 2 3"};

using svg::escape;
using svg::px;

// "Simulated time (s, log)": the metric in words, its unit, and the scale when it is not linear.
std::string y_title(const std::string& metric, const std::string& unit, bool log) {
  std::string note = unit;
  if (log) note += note.empty() ? "log" : ", log";
  const auto title = metric_title(metric);
  return note.empty() ? title : title + " (" + note + ")";
}

// The metric that bounds the charted one from the roofline, where the sweep collects it.
std::string reference_metric(const SweepSpec& spec) {
  const std::pair<const char*, const char*> pairs[] = {{"achieved_flops_per_s", "attainable_flops_per_s"},
                                                       {"sim_time_s", "roofline_time_s"}};
  for (const auto& [charted, bound] : pairs) {
    if (spec.chart_metric == charted &&
        std::find(spec.metrics.begin(), spec.metrics.end(), bound) != spec.metrics.end()) {
      return bound;
    }
  }
  return "";
}

struct Mapping {
  bool log = false;
  double lo = 0, hi = 1;  // data range (log10 of it for a log axis)
  double px_lo = 0, px_hi = 1;
  [[nodiscard]] double map(double value) const {
    const double v = log ? std::log10(value) : value;
    return hi == lo ? (px_lo + px_hi) / 2 : px_lo + (v - lo) / (hi - lo) * (px_hi - px_lo);
  }
};

std::size_t metric_index(const SweepSpec& spec, const std::string& name) {
  const auto found = std::find(spec.metrics.begin(), spec.metrics.end(), name);
  return static_cast<std::size_t>(found - spec.metrics.begin());
}

std::optional<double> point_value(const SweepSpec& spec, const PointResult& result, const std::string& name) {
  if (result.status != PointStatus::ok) return std::nullopt;
  const std::size_t metric = metric_index(spec, name);
  if (metric >= spec.metrics.size()) return std::nullopt;
  if (spec.chart_op == "total") return result.total.numbers.at(metric);
  for (const auto& row : result.rows) {
    if (row.op == spec.chart_op) return row.numbers[metric];
  }
  return std::nullopt;
}

// A number with an SI prefix and its unit ("500 us", "800 TFLOP/s"); without a unit, a count as written ("5000") or
// with the prefix alone ("1.5M").
std::string tick_text(double value, const std::string& unit) {
  if (value == 0) return unit.empty() ? "0" : "0 " + unit;
  if (unit.empty() && std::abs(value) < 1e5 && value == std::floor(value)) return fmt::format("{}", value);
  auto text = format_si(value, unit, 3);
  if (unit.empty()) text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  return text;
}

}  // namespace

std::string metric_title(const std::string& metric) {
  static const std::pair<const char*, const char*> kTitles[] = {{"achieved_flops_per_s", "Achieved performance"},
                                                                {"attainable_flops_per_s", "Roofline ceiling"},
                                                                {"sim_time_s", "Simulated time"},
                                                                {"roofline_time_s", "Roofline time"},
                                                                {"useful_flops", "Useful FLOPs"},
                                                                {"executed_flops", "Executed FLOPs"},
                                                                {"bound_by", "Bound by"},
                                                                {"binding", "Binding ceiling"}};
  for (const auto& [name, title] : kTitles) {
    if (metric == name) return title;
  }
  const std::pair<const char*, const char*> kPrefixes[] = {
      {"bytes.", "Bytes at "}, {"oi.", "Operational intensity at "}, {"ceilings.", "Ceiling: "}};
  for (const auto& [prefix, title] : kPrefixes) {
    if (metric.rfind(prefix, 0) == 0) return title + metric.substr(std::string(prefix).size());
  }
  std::string words = metric;
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

std::string metric_unit(const std::string& metric) {
  const auto ends_with = [&](std::string_view tail) {
    return metric.size() >= tail.size() && metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (metric.rfind("ceilings.", 0) == 0 || ends_with("flops_per_s")) return "FLOP/s";
  if (ends_with("_s")) return "s";
  if (ends_with("flops")) return "FLOP";
  if (metric.rfind("bytes.", 0) == 0 || ends_with("_bytes")) return "B";
  if (metric.rfind("oi.", 0) == 0) return "FLOP/B";
  return "";
}

namespace {

OpReport op_from_json(const nlohmann::ordered_json& op, const std::string& prefix) {
  OpReport result;
  result.name = prefix + op.value("name", std::string());
  result.kind = op.value("kind", std::string());
  result.dtype = parse_data_type(op.value("dtype", std::string("fp16"))).value_or(DataType::fp16);
  result.engine = op.value("engine", std::string());
  result.useful_flops = op.value("useful_flops", Flops{0});
  result.executed_flops = op.value("executed_flops", result.useful_flops);
  if (op.contains("bytes")) {
    for (const auto& [level, bytes] : op["bytes"].items()) result.bytes.push_back({level, bytes.get<Bytes>()});
  }
  Ceiling* ceilings[] = {&result.roofline.ceilings.classic, &result.roofline.ceilings.hierarchical,
                         &result.roofline.ceilings.dram,    &result.roofline.ceilings.latency,
                         &result.roofline.ceilings.power,   &result.roofline.ceilings.comm};
  const std::string binding = op.value("binding", std::string("classic"));
  for (std::size_t v = 0; v < kAllVariants.size(); ++v) {
    const std::string name(to_string(kAllVariants[v]));
    if (op.contains("ceilings") && op["ceilings"].contains(name)) ceilings[v]->flops_per_s = op["ceilings"][name];
    if (op.contains("ceiling_bound_by") && op["ceiling_bound_by"].contains(name)) {
      ceilings[v]->bound_by = op["ceiling_bound_by"][name].get<std::string>();
    }
    if (name == binding) result.roofline.binding = kAllVariants[v];
  }
  result.roofline.bound_by = op.value("bound_by", std::string());
  // A `run` point is drawn at its achieved FLOP/s, as roofsim run draws its own ops.
  if (op.contains("sim_time_s") && op["sim_time_s"].is_number()) result.sim_time_s = op["sim_time_s"].get<double>();
  if (op.contains("achieved_flops_per_s") && op["achieved_flops_per_s"].is_number()) {
    result.achieved_flops_per_s = op["achieved_flops_per_s"].get<double>();
  }
  return result;
}

// The base scenario's device with the sweep's own hardware overrides; a cluster sweep's one device (with the device
// overrides the cluster file allows).
HardwareParams base_hardware(const SweepSpec& spec) {
  std::vector<Override> hardware_overrides;
  for (const auto& entry : spec.base_overrides) {
    if (entry.key.rfind("workload.", 0) != 0) hardware_overrides.push_back(entry);
  }
  const auto hardware_file = resolve_sweep_hardware(spec.hardware);
  return parse_toml_file(hardware_file).contains("cluster") ? load_cluster(hardware_file, hardware_overrides).device
                                                            : load_hardware(hardware_file, hardware_overrides);
}

// The roofline of the base scenario's device with every op of every ok point; points are named by their axis
// values so that the label of an op says which point it is.
void write_points_roofline(const SweepSpec& spec, const HardwareParams& hardware, const std::vector<SweepPoint>& points,
                           const std::vector<PointResult>& results, std::ostream& out) {
  const auto device = make_device_roof(hardware);
  Report report;
  report.command = spec.mode;
  // A `run` point's report.json holds the simulated bytes at each level, a `roofline` point's the compulsory ones;
  // each report says which.
  report.bytes_basis = spec.mode == "run" ? "simulated" : "compulsory";
  for (const auto& result : results) {
    if (result.status != PointStatus::ok || !result.report.contains("bytes_basis")) continue;
    report.bytes_basis = result.report["bytes_basis"].get<std::string>();
    break;
  }
  report.hardware_name = hardware.name;
  report.workload_name = spec.name;
  report.main_memory = device.main_memory;
  for (const auto& level : device.levels) report.levels.push_back(level.name);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (results[i].status != PointStatus::ok) continue;
    std::string prefix;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      prefix += (a ? " " : "") + spec.axes[a].label + "=" + points[i].values[a];
    }
    const auto json = nlohmann::ordered_json::parse(results[i].report.dump());
    const bool single_op = json.at("ops").size() == 1;
    for (const auto& op : json.at("ops")) {
      // An op without FLOPs has no place on a roofline; listing it once per point would bury the chart's notes.
      if (op.value("useful_flops", Flops{0}) == 0) continue;
      report.ops.push_back(op_from_json(op, single_op ? "" : ":"));
      // One op per point: the point's values alone name it; else "values:op".
      report.ops.back().name = single_op ? prefix : prefix + report.ops.back().name;
    }
  }
  write_roofline_svg(report, device, out);
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1) return {lo};
  const double rough = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  double step = magnitude;
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= rough) break;
  }
  const double first = std::ceil(lo / step - 1e-9);
  for (double k = first;; k += 1) {
    const double value = k * step;
    if (value > hi + 1e-9 * step) break;
    ticks.push_back(std::abs(value) < 1e-12 * step ? 0.0 : value);
  }
  return ticks;
}

std::vector<WaveBoundary> wave_boundaries(const std::vector<double>& x,
                                          const std::vector<std::optional<std::uint64_t>>& tiles, std::uint64_t units) {
  std::vector<WaveBoundary> boundaries;
  if (units == 0) return boundaries;
  const auto per_unit = [&](std::uint64_t count) { return (count + units - 1) / units; };
  std::optional<std::size_t> previous;
  for (std::size_t i = 0; i < x.size() && i < tiles.size(); ++i) {
    if (!tiles[i]) continue;
    if (previous && *tiles[i] > *tiles[*previous]) {
      const double t0 = static_cast<double>(*tiles[*previous]), t1 = static_cast<double>(*tiles[i]);
      for (auto k = per_unit(*tiles[*previous]) + 1; k <= per_unit(*tiles[i]); ++k) {
        // The count passes (k - 1) x units: the first tile past it makes k per unit.
        const double crossing = static_cast<double>((k - 1) * units);
        boundaries.push_back({x[*previous] + (crossing - t0) / (t1 - t0) * (x[i] - x[*previous]), k});
      }
    }
    previous = i;
  }
  return boundaries;
}

namespace {

// The tile count of the charted op of an ok point: the op chart.op names, or the point's only op; none without
// report.json's `tiles` (a `roofline` point).
std::optional<std::uint64_t> charted_tiles(const SweepSpec& spec, const PointResult& result) {
  if (result.status != PointStatus::ok || !result.report.contains("ops")) return std::nullopt;
  const auto& ops = result.report["ops"];
  const nlohmann::json* op = nullptr;
  if (spec.chart_op == "total") {
    if (ops.size() == 1) op = &ops.front();
  } else {
    for (const auto& candidate : ops) {
      if (candidate.value("name", std::string()) == spec.chart_op) op = &candidate;
    }
  }
  if (op == nullptr || !op->contains("tiles") || !(*op)["tiles"].is_number_unsigned()) return std::nullopt;
  return (*op)["tiles"].get<std::uint64_t>();
}

// Per value of axis `a`, the charted op's tile count when every point with that value agrees on it.
std::vector<std::optional<std::uint64_t>> tiles_along(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                                      const std::vector<PointResult>& results, std::size_t a) {
  std::vector<std::optional<std::uint64_t>> tiles(spec.axes[a].values.size());
  std::vector<bool> conflict(tiles.size(), false);
  for (std::size_t p = 0; p < points.size(); ++p) {
    const auto count = charted_tiles(spec, results[p]);
    if (!count) continue;
    const auto v = points[p].value_index[a];
    if (tiles[v] && *tiles[v] != *count) conflict[v] = true;
    tiles[v] = count;
  }
  for (std::size_t v = 0; v < tiles.size(); ++v) {
    if (conflict[v]) return {};
  }
  return tiles;
}

}  // namespace

std::vector<ChartPanel> sweep_panels(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                     const std::vector<PointResult>& results, std::uint64_t units) {
  const bool units_swept = std::any_of(spec.axes.begin(), spec.axes.end(),
                                       [](const SweepAxis& axis) { return axis.key == "compute.units"; });
  std::vector<ChartPanel> panels;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const auto& axis = spec.axes[a];
    ChartPanel panel;
    panel.x_title = axis.label;
    const std::string bound = reference_metric(spec);
    if (!bound.empty()) panel.reference_label = metric_title(bound);
    panel.x_scale = axis.scale;
    // Values that are files (a workload axis) are labelled by their names: the path would run into its neighbours.
    for (const auto& value : axis.values) {
      const std::filesystem::path path(value);
      panel.x_labels.push_back(path.has_parent_path() && path.has_extension() ? path.stem().string() : value);
    }
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      panel.x.push_back(axis.scale == AxisScale::category ? static_cast<double>(i)
                                                          : numeric_value(axis.values[i]).value_or(0.0));
    }
    // A series per combination of the other axes' values, in point order (a zip has one).
    std::map<std::vector<std::size_t>, std::size_t> series_of;
    for (std::size_t p = 0; p < points.size(); ++p) {
      std::vector<std::size_t> others;
      std::string label;
      if (spec.combine == SweepCombine::grid) {
        for (std::size_t o = 0; o < spec.axes.size(); ++o) {
          if (o == a) continue;
          others.push_back(points[p].value_index[o]);
          label += (label.empty() ? "" : ", ") + spec.axes[o].label + " = " + points[p].values[o];
        }
      }
      auto [at, inserted] = series_of.emplace(others, panel.series.size());
      if (inserted) {
        panel.series.push_back(ChartSeries{label.empty() ? metric_title(spec.chart_metric) : label, {}});
        panel.series.back().y.assign(axis.values.size(), std::nullopt);
        if (!bound.empty()) panel.references.push_back(ChartSeries{panel.series.back().label, panel.series.back().y});
      }
      panel.series[at->second].y[points[p].value_index[a]] = point_value(spec, results[p], spec.chart_metric);
      if (!bound.empty())
        panel.references[at->second].y[points[p].value_index[a]] = point_value(spec, results[p], bound);
    }
    if (units > 0 && !units_swept && axis.scale != AxisScale::category) {
      panel.units = units;
      panel.wave_boundaries = wave_boundaries(panel.x, tiles_along(spec, points, results, a), units);
    }
    panels.push_back(std::move(panel));
  }
  return panels;
}

void write_sweep_svg(const SweepSpec& spec, const std::vector<ChartPanel>& panels, std::ostream& out) {
  const double height = kTitleHeight + kPanelHeight * static_cast<double>(panels.size());
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << px(kWidth) << "\" height=\"" << px(height)
      << "\" viewBox=\"0 0 " << px(kWidth) << " " << px(height)
      << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n";
  const std::string of = spec.chart_op == "total" ? "all ops" : spec.chart_op;
  out << "<text class=\"title\" x=\"" << px(kWidth / 2) << "\" y=\"24\" font-size=\"16\" text-anchor=\"middle\">"
      << escape(spec.name + ": " + metric_title(spec.chart_metric) + " of " + of) << "</text>\n";
  const std::string y_unit = metric_unit(spec.chart_metric);
  if (!spec.description.empty()) {
    out << "<text x=\"" << px(kWidth / 2) << "\" y=\"44\" font-size=\"" << px(kSmallFontPx)
        << "\" text-anchor=\"middle\" fill=\"#555555\">" << escape(spec.description) << "</text>\n";
  }
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const auto& panel = panels[p];
    const double top = kTitleHeight + kPanelHeight * static_cast<double>(p) + kPlotTop;
    const double bottom = top + kPlotHeight;
    // The legend's width from its longest entry; the plot takes the rest of the width.
    const bool has_legend = panel.series.size() > 1 || !panel.references.empty() || !panel.wave_boundaries.empty();
    std::vector<std::string> legend_texts;
    for (std::size_t s = 0; s < panel.series.size() && s < kMaxLegendEntries; ++s) {
      legend_texts.push_back(fmt::format("{}. {} (= {}.)", s + 1, panel.series[s].label, s));
    }
    if (!panel.references.empty()) legend_texts.push_back("dashed: " + panel.reference_label);
    const std::string wave_legend = fmt::format("dotted: tiles per unit step ({} units)", panel.units);
    if (!panel.wave_boundaries.empty()) legend_texts.push_back(wave_legend);
    double legend_width = 0;
    for (const auto& text : legend_texts) legend_width = std::max(legend_width, 30 + text_width_px(text, kSmallFontPx));
    legend_width = has_legend ? std::min(kMaxLegendWidth, legend_width) : 0;
    const double right = kWidth - 24 - (has_legend ? legend_width + 16 : 0);
    const double plot_width = right - kPlotLeft;
    const double legend_left = right + 16;

    std::vector<double> ys;
    for (const auto* group : {&panel.series, &panel.references}) {
      for (const auto& series : *group) {
        for (const auto& y : series.y) {
          if (y && std::isfinite(*y)) ys.push_back(*y);
        }
      }
    }
    Mapping x_map{panel.x_scale == AxisScale::log, 0, 1, kPlotLeft + 12, right - 12};
    if (!panel.x.empty()) {
      const auto [x_lo, x_hi] = std::minmax_element(panel.x.begin(), panel.x.end());
      x_map.lo = x_map.log ? std::log10(*x_lo) : *x_lo;
      x_map.hi = x_map.log ? std::log10(*x_hi) : *x_hi;
    }
    Mapping y_map{false, 0, 1, bottom, top};
    std::vector<std::pair<double, std::string>> y_ticks;
    if (!ys.empty()) {
      const auto [lo_it, hi_it] = std::minmax_element(ys.begin(), ys.end());
      const double lo = *lo_it, hi = *hi_it;
      const bool positive = lo > 0;
      y_map.log = spec.chart_y_scale ? *spec.chart_y_scale == AxisScale::log && positive : positive && hi / lo > 10;
      if (y_map.log) {
        y_map.lo = std::floor(std::log10(lo));
        y_map.hi = std::max(std::ceil(std::log10(hi)), y_map.lo + 1);
        for (int e = static_cast<int>(y_map.lo); e <= static_cast<int>(y_map.hi); ++e) {
          y_ticks.emplace_back(std::pow(10.0, e), tick_text(std::pow(10.0, e), y_unit));
        }
      } else {
        // Linear from zero when the data are all positive, so that ratios read off the chart honestly.
        const double y_lo = positive ? 0.0 : lo;
        const double y_hi = hi > y_lo ? hi * 1.05 : y_lo + 1;
        const auto ticks = nice_ticks(y_lo, y_hi, 5);
        y_map.lo = y_lo;
        y_map.hi = std::max(y_hi, ticks.empty() ? y_hi : ticks.back());
        for (const double tick : ticks) y_ticks.emplace_back(tick, tick_text(tick, y_unit));
      }
    }

    out << "<g class=\"panel\">\n";
    out << "<rect class=\"plot-area\" x=\"" << px(kPlotLeft) << "\" y=\"" << px(top) << "\" width=\"" << px(plot_width)
        << "\" height=\"" << px(kPlotHeight) << "\" fill=\"none\" stroke=\"#222222\"/>\n";
    for (const auto& [value, text] : y_ticks) {
      const double y = y_map.map(value);
      out << "<line x1=\"" << px(kPlotLeft) << "\" y1=\"" << px(y) << "\" x2=\"" << px(right) << "\" y2=\"" << px(y)
          << "\" stroke=\"#E0E0E0\"/>\n";
      out << "<text class=\"tick-y\" x=\"" << px(kPlotLeft - 6) << "\" y=\"" << px(y + 4) << "\" font-size=\""
          << px(kFontPx) << "\" text-anchor=\"end\">" << escape(text) << "</text>\n";
    }
    // Ticks at the axis values, labelled as written; a long linear axis gets round ticks instead. Labels that would
    // run into each other are thinned to every k-th.
    std::vector<std::pair<double, std::string>> x_ticks;
    if (panel.x_scale == AxisScale::linear && panel.x.size() > kMaxXLabels) {
      for (const double tick : nice_ticks(x_map.lo, x_map.hi, 8)) x_ticks.emplace_back(tick, tick_text(tick, ""));
    } else {
      double widest = 0;
      for (const auto& label : panel.x_labels) widest = std::max(widest, text_width_px(label, kSmallFontPx));
      const double spacing =
          panel.x.size() > 1 ? (right - kPlotLeft - 24) / static_cast<double>(panel.x.size() - 1) : 1e9;
      std::size_t label_every = std::max<std::size_t>(1, (panel.x.size() + kMaxXLabels - 1) / kMaxXLabels);
      if (panel.x_scale == AxisScale::category) {
        while (spacing * static_cast<double>(label_every) < widest + 6) ++label_every;
      }
      for (std::size_t i = 0; i < panel.x.size(); i += label_every) x_ticks.emplace_back(panel.x[i], panel.x_labels[i]);
    }
    for (const auto& [value, text] : x_ticks) {
      const double x = x_map.map(value);
      out << "<line x1=\"" << px(x) << "\" y1=\"" << px(bottom) << "\" x2=\"" << px(x) << "\" y2=\"" << px(bottom + 4)
          << "\" stroke=\"#222222\"/>\n";
      out << "<text class=\"tick-x\" x=\"" << px(x) << "\" y=\"" << px(bottom + 18) << "\" font-size=\""
          << px(kSmallFontPx) << "\" text-anchor=\"middle\">" << escape(text) << "</text>\n";
    }
    const char* scale_note = panel.x_scale == AxisScale::log ? " (log)" : "";
    out << "<text class=\"axis-title\" x=\"" << px((kPlotLeft + right) / 2) << "\" y=\"" << px(bottom + 40)
        << "\" font-size=\"" << px(kFontPx) << "\" text-anchor=\"middle\">" << escape(panel.x_title + scale_note)
        << "</text>\n";
    const double y_mid = (top + bottom) / 2;
    out << "<text class=\"axis-title\" x=\"18\" y=\"" << px(y_mid) << "\" font-size=\"" << px(kFontPx)
        << "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " << px(y_mid) << ")\">"
        << escape(y_title(spec.chart_metric, y_unit, y_map.log)) << "</text>\n";

    // Wave boundaries under the data, each labelled at the top with the tiles per unit past it; a label that would
    // run into the previous one is left out (the line stays).
    double last_label_end = -1e9;
    for (const auto& boundary : panel.wave_boundaries) {
      const double x = x_map.map(x_map.log ? std::max(boundary.x, 1e-300) : boundary.x);
      if (!(x >= kPlotLeft && x <= right)) continue;
      out << "<line class=\"wave-boundary\" x1=\"" << px(x) << "\" y1=\"" << px(top) << "\" x2=\"" << px(x)
          << "\" y2=\"" << px(bottom) << "\" stroke=\"#777777\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>\n";
      const std::string label = fmt::format("{}/unit", boundary.tiles_per_unit);
      const double width = text_width_px(label, kSmallFontPx);
      if (x + 3 < last_label_end + 6 || x + 3 + width > right) continue;
      out << "<text class=\"wave-label\" x=\"" << px(x + 3) << "\" y=\"" << px(top + 12) << "\" font-size=\""
          << px(kSmallFontPx) << "\" fill=\"#555555\">" << escape(label) << "</text>\n";
      last_label_end = x + 3 + width;
    }
    const auto path_of = [&](const ChartSeries& series) {
      std::string path;
      bool pen_down = false;
      for (std::size_t i = 0; i < series.y.size(); ++i) {
        const auto& y = series.y[i];
        if (!y || !std::isfinite(*y) || (y_map.log && !(*y > 0))) {
          pen_down = false;
          continue;
        }
        path += fmt::format("{}{} {} ", pen_down ? "L" : "M", px(x_map.map(panel.x[i])), px(y_map.map(*y)));
        pen_down = true;
      }
      if (!path.empty()) path.pop_back();
      return path;
    };
    // Series drawn on top of an identical earlier one would hide it: a line that later series repeat is drawn wider,
    // by 1.6 px per repeat, so that each shows as a band of its colour around the next; the legend says so.
    std::vector<std::string> paths;
    for (const auto& series : panel.series) paths.push_back(path_of(series));
    std::vector<std::size_t> repeats(paths.size(), 0);
    std::vector<std::optional<std::size_t>> same_as(paths.size());
    for (std::size_t s = 0; s < paths.size(); ++s) {
      for (std::size_t t = 0; t < s; ++t) {
        if (!paths[s].empty() && paths[s] == paths[t]) {
          same_as[s] = t;
          for (std::size_t u = t; u < s; ++u) {
            if (paths[u] == paths[s]) ++repeats[u];
          }
          break;
        }
      }
    }
    const auto colour_of = [](std::size_t s) { return std::string(kColours[s % kColourCount]); };
    const auto dash_of = [](std::size_t s) {
      const std::string dash = kDashes[(s / kColourCount) % 4];
      return dash.empty() ? std::string() : " stroke-dasharray=\"" + dash + "\"";
    };
    for (std::size_t s = 0; s < panel.references.size(); ++s) {
      const auto path = path_of(panel.references[s]);
      if (path.empty()) continue;
      out << "<path class=\"reference\" data-label=\"" << escape(panel.references[s].label) << "\" d=\"" << path
          << "\" fill=\"none\" stroke=\"" << colour_of(s) << "\" stroke-width=\"1\" stroke-dasharray=\"5 3\"/>\n";
    }
    for (std::size_t s = 0; s < panel.series.size(); ++s) {
      const auto& series = panel.series[s];
      const std::string colour = colour_of(s);
      out << "<g class=\"series\" data-label=\"" << escape(series.label) << "\">\n";
      if (!paths[s].empty()) {
        out << "<path d=\"" << paths[s] << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\""
            << px(1.8 + 1.6 * static_cast<double>(repeats[s])) << "\"" << dash_of(s) << "/>\n";
      }
      for (std::size_t i = 0; i < series.y.size(); ++i) {
        const auto& y = series.y[i];
        if (!y || !std::isfinite(*y) || (y_map.log && !(*y > 0))) continue;
        out << "<circle class=\"point\" cx=\"" << px(x_map.map(panel.x[i])) << "\" cy=\"" << px(y_map.map(*y))
            << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
      }
      out << "</g>\n";
      if (!has_legend) continue;
      const double ly = top + 8 + 18 * static_cast<double>(s);
      if (s < kMaxLegendEntries) {
        // Numbered, cut to the legend's width; a line identical to an earlier one names its number.
        std::string label = fmt::format("{}. {}", s + 1, series.label);
        const std::string same = same_as[s] ? fmt::format(" (= {}.)", *same_as[s] + 1) : "";
        const auto max_chars = static_cast<std::size_t>((kMaxLegendWidth - 30) / (0.65 * kSmallFontPx));
        if (label.size() + same.size() > max_chars) label = label.substr(0, max_chars - same.size() - 3) + "...";
        label += same;
        out << "<line x1=\"" << px(legend_left) << "\" y1=\"" << px(ly) << "\" x2=\"" << px(legend_left + 22)
            << "\" y2=\"" << px(ly) << "\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash_of(s) << "/>\n";
        out << "<text class=\"legend\" x=\"" << px(legend_left + 28) << "\" y=\"" << px(ly + 4) << "\" font-size=\""
            << px(kSmallFontPx) << "\">" << escape(label) << "</text>\n";
      } else if (s == kMaxLegendEntries) {
        out << "<text class=\"legend\" x=\"" << px(legend_left) << "\" y=\"" << px(ly + 4) << "\" font-size=\""
            << px(kSmallFontPx) << "\">" << fmt::format("+{} more lines", panel.series.size() - s) << "</text>\n";
      }
    }
    if (!panel.references.empty()) {
      const double ly = top + 8 + 18 * static_cast<double>(std::min(panel.series.size(), kMaxLegendEntries + 1));
      out << "<line x1=\"" << px(legend_left) << "\" y1=\"" << px(ly) << "\" x2=\"" << px(legend_left + 22)
          << "\" y2=\"" << px(ly) << "\" stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"5 3\"/>\n";
      out << "<text class=\"legend\" x=\"" << px(legend_left + 28) << "\" y=\"" << px(ly + 4) << "\" font-size=\""
          << px(kSmallFontPx) << "\">" << escape("dashed: " + panel.reference_label) << "</text>\n";
    }
    if (!panel.wave_boundaries.empty()) {
      const double ly = top + 8 +
                        18 * static_cast<double>(std::min(panel.series.size(), kMaxLegendEntries + 1) +
                                                 (panel.references.empty() ? 0 : 1));
      out << "<line x1=\"" << px(legend_left) << "\" y1=\"" << px(ly) << "\" x2=\"" << px(legend_left + 22)
          << "\" y2=\"" << px(ly) << "\" stroke=\"#777777\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>\n";
      out << "<text class=\"legend\" x=\"" << px(legend_left + 28) << "\" y=\"" << px(ly + 4) << "\" font-size=\""
          << px(kSmallFontPx) << "\">" << escape(wave_legend) << "</text>\n";
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
}

void write_sweep_charts(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        const std::vector<PointResult>& results, const std::filesystem::path& dir) {
  const auto hardware = base_hardware(spec);
  {
    // `roofline` points have no simulated time: chart the analytic counterpart of a simulated metric when it is
    // collected, so that `--mode roofline` of a `run` study still draws its chart.
    SweepSpec charted = spec;
    if (spec.mode == "roofline") {
      const std::pair<const char*, const char*> counterparts[] = {{"sim_time_s", "roofline_time_s"},
                                                                  {"achieved_flops_per_s", "attainable_flops_per_s"}};
      for (const auto& [simulated, analytic] : counterparts) {
        if (spec.chart_metric == simulated &&
            std::find(spec.metrics.begin(), spec.metrics.end(), analytic) != spec.metrics.end()) {
          charted.chart_metric = analytic;
        }
      }
    }
    write_output_file(dir / "sweep.svg", [&](std::ostream& out) {
      write_sweep_svg(charted, sweep_panels(charted, points, results, hardware.compute.units), out);
    });
  }
  write_output_file(dir / "sweep_roofline.svg",
                    [&](std::ostream& out) { write_points_roofline(spec, hardware, points, results, out); });
}

}  // namespace roofsim
