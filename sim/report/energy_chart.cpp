#include "sim/report/energy_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "sim/config/quantity.h"
#include "sim/core/power_laws.h"
#include "sim/report/label_placer.h"
#include "sim/report/op_labels.h"
#include "sim/report/power_labels.h"
#include "sim/report/svg_chart.h"
#include "sim/report/svg_primitives.h"

namespace roofsim {

namespace {

using svg::LineStyle;
using svg::LogAxis;
using svg::px;

using namespace svg::layout;
constexpr int kPointsPerDecade = 48;
// A cluster rank's last row: its whole step (every op's FLOPs and energy together), not an op, so not a point among
// them.
constexpr const char* kStepKind = "step";

// Ops whose points fall in one cell of this size share a label.
constexpr double kSharePx = 3;

Joules flop_energy_nominal_j(const DeviceRoof& device, DataType dtype, const std::string& engine) {
  const auto* chosen = device.compute.engine_for(dtype, engine);
  if (chosen == nullptr) return 0;
  const auto found = chosen->energy_per_flop_j.find(dtype);
  return found == chosen->energy_per_flop_j.end() ? 0.0 : found->second;
}

// "matrix fp16": the engine that runs the type. Ops without an engine of their own (a cluster step's row) name the
// one the device chooses for the type.
std::string arch_label(const DeviceRoof& device, const std::string& engine, DataType dtype) {
  const auto* chosen = device.compute.engine_for(dtype, engine);
  const std::string name = chosen != nullptr ? chosen->name : engine;
  return name.empty() ? std::string(to_string(dtype)) : name + " " + std::string(to_string(dtype));
}

}  // namespace

double arch_flops_per_j(const DeviceRoof& device, DataType dtype, const std::string& engine, FlopsPerByte oi,
                        std::size_t state) {
  if (device.dvfs.empty() || !(oi > 0)) return 0;
  const auto& at = device.dvfs[std::min(state, device.dvfs.size() - 1)];
  const FlopsPerSecond peak = peak_flops_per_s(device, dtype, engine, at.clock_hz);
  if (!(peak > 0)) return 0;
  const double scale = dynamic_energy_scale(at.voltage_v, device.nominal_voltage_v);
  Joules per_flop = flop_energy_nominal_j(device, dtype, engine) * scale;
  for (const auto& level : device.levels) per_flop += level.energy_per_byte_j * (level.on_chip ? scale : 1.0) / oi;
  // Time per FLOP of the classic roofline at this clock: the larger of 1 / P and 1 / (OI x B).
  double seconds_per_flop = 1.0 / peak;
  if (device.main_bandwidth_bytes_per_s > 0) {
    seconds_per_flop = std::max(seconds_per_flop, 1.0 / (oi * device.main_bandwidth_bytes_per_s));
  }
  // Static power and the units' clock power are drawn for as long as the op runs.
  per_flop += (device_static_power_w(device, at.voltage_v) + active_units_power_w(device, at)) * seconds_per_flop;
  return per_flop > 0 ? 1.0 / per_flop : 0.0;
}

Joules op_energy_j(const DeviceRoof& device, const OpReport& op) {
  if (op.energy_j) return *op.energy_j;
  Joules energy = static_cast<double>(op.useful_flops) * flop_energy_nominal_j(device, op.dtype, op.engine);
  for (const auto& level : device.levels) {
    energy += static_cast<double>(op.bytes_at(level.name)) * level.energy_per_byte_j;
  }
  energy += static_cast<double>(op.network_bytes) * device.network_energy_per_byte_j;
  const FlopsPerSecond rate = op.attainable_flops_per_s();
  if (rate > 0) {
    const Watts running_w = device_static_power_w(device, device.nominal_voltage_v) +
                            active_units_power_w(device, {device.nominal_clock_hz, device.nominal_voltage_v});
    energy += running_w * static_cast<double>(op.useful_flops) / rate;
  }
  return energy;
}

namespace {

struct Arch {
  DataType dtype = DataType::fp16;
  std::string engine;
  std::string label;
};

struct EnergyChart {
  EnergyChart(const Report& r, const DeviceRoof& d) : report(r), device(d) {}

  void choose_arches() {
    // The ops' main data types by FLOPs, at most three, as on roofline.svg's power curves.
    std::map<std::pair<DataType, std::string>, Flops> flops_by_type;
    for (const auto& op : report.ops) {
      if (op.kind == kStepKind) continue;  // its FLOPs are the ops'
      // Keyed by the engine that runs the op: a row without an engine of its own joins that engine's ops.
      const auto* chosen = device.compute.engine_for(op.dtype, op.engine);
      flops_by_type[{op.dtype, chosen != nullptr ? chosen->name : op.engine}] += op.useful_flops;
    }
    std::vector<std::pair<Flops, std::pair<DataType, std::string>>> ranked;
    for (const auto& [key, flops] : flops_by_type) ranked.push_back({flops, key});
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [flops, key] : ranked) {
      if (arches.size() == 3) break;
      if (flops == 0 || peak_flops_per_s(device, key.first, key.second, device.nominal_clock_hz) <= 0) continue;
      arches.push_back({key.first, key.second, arch_label(device, key.second, key.first)});
    }
  }

  void select_ops() {
    for (std::size_t i = 0; i < report.ops.size(); ++i) {
      const auto& op = report.ops[i];
      if (op.kind == kStepKind) continue;
      const double oi = op.oi_at(report.main_memory);
      const Joules energy = op_energy_j(device, op);
      if (op.useful_flops == 0 || !(energy > 0)) {
        not_plotted.push_back(op.name);
      } else if (!std::isfinite(oi) || !(oi > 0)) {
        not_plotted.push_back(op.name);
      } else {
        plotted.push_back({i, oi, static_cast<double>(op.useful_flops) / energy});
      }
    }
  }

  void choose_axes() {
    double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
    for (const auto& point : plotted) {
      x_min = std::min(x_min, point.oi), x_max = std::max(x_max, point.oi);
      y_min = std::min(y_min, point.flops_per_j), y_max = std::max(y_max, point.flops_per_j);
    }
    if (x_max <= 0) x_min = 0.1, x_max = 1000;
    for (const auto& arch : arches) {
      // The arch's top (high intensity) and its value at the left end bound the y range.
      const double ridge = device.main_bandwidth_bytes_per_s > 0
                               ? peak_flops_per_s(device, arch.dtype, arch.engine, device.nominal_clock_hz) /
                                     device.main_bandwidth_bytes_per_s
                               : 0;
      if (ridge > 0) x_min = std::min(x_min, ridge), x_max = std::max(x_max, ridge);
    }
    std::tie(x_lo, x_hi) = svg::decade_range(x_min, x_max, 2.0, 4);
    for (const auto& arch : arches) {
      for (std::size_t s = 0; s < device.dvfs.size(); ++s) {
        const double top = arch_flops_per_j(device, arch.dtype, arch.engine, std::pow(10.0, x_hi), s);
        if (top > 0) y_max = std::max(y_max, top);
      }
      const double low =
          arch_flops_per_j(device, arch.dtype, arch.engine, std::pow(10.0, x_lo), device.dvfs.size() - 1);
      if (low > 0) y_min = std::min(y_min, low);
    }
    if (y_max <= 0) y_min = 1e9, y_max = 1e12;
    y_min = std::min(y_min, y_max);
    std::tie(y_lo, y_hi) = svg::decade_range(y_min, y_max, 1.6, 3);
    x_axis = {x_lo, x_hi, kPlotLeft, kPlotRight};
    y_axis = {y_lo, y_hi, kPlotBottom, kPlotTop};
  }

  void draw_arches() {
    static const char* kDash[] = {"", "6 3", "2 2"};
    svg.raw("<g clip-path=\"url(#plot-clip)\">");
    const std::size_t slowest = 0, nominal = device.dvfs.empty() ? 0 : device.dvfs.size() - 1;
    for (std::size_t a = 0; a < arches.size(); ++a) {
      const auto& arch = arches[a];
      // The nominal state, and the slowest one where there is another: throttling moves the arch up (V^2).
      std::vector<std::size_t> states{nominal};
      if (slowest != nominal) states.push_back(slowest);
      for (const std::size_t state : states) {
        std::string path;
        double previous_x = 0, previous_y = 0;
        const int steps = static_cast<int>(std::ceil((x_hi - x_lo) * kPointsPerDecade));
        for (int i = 0; i <= steps; ++i) {
          const double oi = std::pow(10.0, x_lo + (x_hi - x_lo) * i / steps);
          const double value = arch_flops_per_j(device, arch.dtype, arch.engine, oi, state);
          if (!(value > 0)) continue;
          const double x = x_axis.map(oi), y = y_axis.map(value);
          if (!path.empty()) placer.block_line(Segment{previous_x, previous_y, x, y});
          path += (path.empty() ? "M" : " L") + px(x) + " " + px(y);
          previous_x = x, previous_y = y;
        }
        if (path.empty()) continue;
        const bool is_nominal = state == nominal;
        const std::string colour = is_nominal ? "#1F3B73" : "#2E8B57";
        body << "<path class=\"arch\" data-dtype=\"" << to_string(arch.dtype) << "\" data-engine=\""
             << svg::escape(arch.engine) << "\" data-clock-hz=\"" << fmt::format("{:.6g}", device.dvfs[state].clock_hz)
             << "\" d=\"" << path << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\""
             << (is_nominal ? "2.2" : "1.6") << "\"" << svg::dash_attr(kDash[a]) << "/>\n";
        legend_entries.push_back(
            {{colour, is_nominal ? 2.2 : 1.6, kDash[a]},
             fmt::format("{} at {} ({:.2f} V)", arch.label, format_si(device.dvfs[state].clock_hz, "Hz"),
                         device.dvfs[state].voltage_v)});
      }
    }
    svg.raw("</g>");
  }

  void draw_points() {
    // Ops drawn within a cell of kSharePx share one label and one reserved marker box (the box covers the cell), so
    // the label placer's work follows the picture, not the number of ops.
    std::vector<OpLabelPoint> label_points;
    std::unordered_map<std::uint64_t, std::size_t> shared;
    for (const auto& point : plotted) {
      const auto& op = report.ops[point.op];
      const double x = x_axis.map(point.oi), y = y_axis.map(point.flops_per_j);
      body << "<circle class=\"op\" cx=\"" << px(x) << "\" cy=\"" << px(y) << "\" r=\"" << px(kPointRadius)
           << "\" data-op=\"" << svg::escape(op.name) << "\" data-oi=\"" << fmt::format("{:.9g}", point.oi)
           << "\" data-flops-per-j=\"" << fmt::format("{:.9g}", point.flops_per_j) << "\" fill=\""
           << svg::bound_colour(op.roofline.bound_by) << "\" stroke=\"#FFFFFF\" stroke-width=\"1\"/>\n";
      const double cx = std::floor(std::clamp(x, -1e6, 1e6) / kSharePx);
      const double cy = std::floor(std::clamp(y, -1e6, 1e6) / kSharePx);
      const auto cell = (static_cast<std::uint64_t>(cx + (1 << 30)) << 32) | static_cast<std::uint64_t>(cy + (1 << 30));
      const auto [at, inserted] = shared.emplace(cell, label_points.size());
      if (inserted) {
        const double left = cx * kSharePx, top = cy * kSharePx;
        placer.block(Box{left - kPointRadius - 1, top - kPointRadius - 1, left + kSharePx + kPointRadius + 1,
                         top + kSharePx + kPointRadius + 1});
        label_points.push_back({x, y, {}});
      }
      label_points[at->second].names.push_back(op_chart_label(op));
    }
    op_key = place_op_labels(label_points, placer, svg, kOpFontPx);
  }

  void write(std::ostream& stream) {
    choose_arches();
    select_ops();
    choose_axes();
    svg::draw_log_grid(svg, {kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight}, x_axis, y_axis, kFontPx);
    draw_arches();
    draw_points();

    const bool simulated =
        std::any_of(report.ops.begin(), report.ops.end(), [](const OpReport& op) { return op.energy_j.has_value(); });
    const Watts nominal_units_w = active_units_power_w(device, {device.nominal_clock_hz, device.nominal_voltage_v});
    notes.push_back("x: useful FLOPs per " + report.bytes_basis + " byte at " + report.main_memory +
                    "; y: useful FLOPs per joule, " +
                    (simulated ? "of the simulated energy (dynamic and static)"
                               : "modelled: operation energies plus static power over the binding ceiling's time") +
                    ".");
    notes.push_back(fmt::format(
        "Arch line (Choi et al., IPDPS 2013): 1 / (e_flop + e_mem / OI + pi_0 max(1 / P, 1 / (OI B))), e_mem summed "
        "over {} levels, pi_0 = {} at nominal voltage (compute leakage {}, DRAM background {}, clock power of the "
        "units holding work {}), B = {} ({}).",
        device.levels.size(), format_si(device_static_power_w(device, device.nominal_voltage_v) + nominal_units_w, "W"),
        format_si(device.static_power_w, "W"), format_si(device.memory_static_power_w, "W"),
        format_si(nominal_units_w, "W"), format_si(device.main_bandwidth_bytes_per_s, "B/s"), report.main_memory));
    if (any_throttled(report)) notes.push_back(throttled_label_note());
    if (!not_plotted.empty()) {
      notes.push_back(fmt::format("Not on a log-log chart ({} op{}: 0 FLOP, no energy or no {} bytes): {}.",
                                  not_plotted.size(), not_plotted.size() == 1 ? "" : "s", report.main_memory,
                                  summarise_names(not_plotted, 8)));
    }

    svg::Legend legend(kLegendLeft, kPlotTop + 6, kFontPx, kSmallFontPx);
    legend.title("Arch lines (FLOP/J)");
    for (const auto& [style, text] : legend_entries) legend.line(style, text);
    legend.gap(6);
    legend.title("Markers");
    std::vector<std::string> categories;
    for (const auto& point : plotted) {
      const auto category = svg::bound_category(report.ops[point.op].roofline.bound_by);
      if (std::find(categories.begin(), categories.end(), category) == categories.end()) categories.push_back(category);
    }
    std::sort(categories.begin(), categories.end());
    for (const auto& category : categories) {
      const std::string example = category == "compute"  ? "compute:fp16"
                                  : category == "memory" ? "memory:dram"
                                                         : category;
      legend.circle(svg::bound_colour(example), kPointRadius, "op bound by " + category);
    }
    draw_op_key(legend, op_key);

    svg::LayoutPage page;
    page.title = "Energy efficiency: " + report.workload_name + " on " + report.hardware_name;
    page.subtitle = fmt::format("roofsim {}: {} ops; FLOP/J against intensity, the arch line of Choi et al. 2013",
                                report.command, report.ops.size());
    page.x_title = "Operational intensity (FLOP/B, " + report.bytes_basis + " " + report.main_memory + " bytes)";
    page.y_title = "Energy efficiency (FLOP/J)";
    page.notes = notes;
    svg::write_layout_page(stream, page, body.str(), legend);
  }

  struct Point {
    std::size_t op = 0;
    double oi = 0, flops_per_j = 0;
  };
  const Report& report;
  const DeviceRoof& device;
  std::vector<Arch> arches;
  std::vector<Point> plotted;
  std::vector<std::string> not_plotted;
  std::vector<std::string> notes;
  std::vector<std::pair<LineStyle, std::string>> legend_entries;
  OpKey op_key;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  LogAxis x_axis, y_axis;
  LabelPlacer placer{Box{kPlotLeft + 2, kPlotTop + 2, kPlotRight - 2, kPlotBottom - 2}};
  std::ostringstream body;
  svg::SvgOut svg{body};
};

}  // namespace

ChartWork write_energy_svg(const Report& report, const DeviceRoof& device, std::ostream& out) {
  EnergyChart chart(report, device);
  chart.write(out);
  return {chart.placer.comparisons()};
}

}  // namespace roofsim
