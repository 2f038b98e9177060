#include "sim/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "sim/config/quantity.h"
#include "sim/report/label_placer.h"
#include "sim/report/op_labels.h"
#include "sim/report/power_labels.h"
#include "sim/report/svg_primitives.h"
#include "sim/roofline/chart_lines.h"

namespace roofsim {

namespace {

using svg::bound_category;
using svg::bound_colour;
using svg::dash_attr;
using svg::decade_range;
using svg::LineStyle;
using svg::LogAxis;
using svg::px;
using svg::SvgOut;

using namespace svg::layout;
// Ops closer than this share a point and a label ("conv1 +2"): separate markers would hide each other.
constexpr double kMergePx = 2.5;
// Owner ids of the lines in the label placer: bandwidth lines count from 0, compute roofs from here.
constexpr int kRoofOwner = 1000;
// Baselines of a horizontal line's label: above the line its descenders clear it by 1.6 px, below it its ascenders.
constexpr double kAboveLinePx = -4.2, kBelowLinePx = 11.8;

std::string engine_colour(std::size_t index) {
  static const char* kColours[] = {"#1F3B73", "#6A3D9A", "#2E6E8E", "#7F7F7F"};
  return kColours[std::min<std::size_t>(index, 3)];
}

LineStyle bandwidth_style(const BandwidthLine& line, const std::string& main_memory, std::size_t level_index) {
  static const char* kLevelColours[] = {"#66A61E", "#1B9E77", "#A6761D", "#7570B3"};
  switch (line.kind) {
    case BandwidthKind::level:
      if (line.name == main_memory) return {"#000000", 2.2, ""};
      return {kLevelColours[std::min<std::size_t>(level_index, 3)], 1.5, ""};
    case BandwidthKind::dram_all_hit: return {"#555555", 1.3, "7 4"};
    case BandwidthKind::dram_all_miss: return {"#8C6D1F", 1.5, "2 3"};
    case BandwidthKind::latency: return {"#CC79A7", 1.5, "8 3 2 3"};
    case BandwidthKind::network: return {"#E69F00", 1.8, "10 4"};
  }
  return {"#000000", 1.5, ""};
}

// FLOPs per byte the device sends (the communication-aware variant's OI_net); +inf without network bytes.
double oi_net(const OpReport& op) {
  return op.network_bytes == 0 ? std::numeric_limits<double>::infinity()
                               : static_cast<double>(op.useful_flops) / static_cast<double>(op.network_bytes);
}

// One group of compute lines at the same peak (e.g. matrix fp64 and vector fp32 on an H100).
struct PeakGroup {
  FlopsPerSecond peak = 0;
  std::string label;
  std::string colour;
  FlopsPerByte ridge_oi = 0;
};

struct PlotPoint {
  std::vector<std::size_t> ops;  // ops drawn at this point (identical coordinates share one point and label)
  double x = 0, y = 0;           // px
  std::string bound_by;
};

struct PlacedLine {
  std::string label;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  LineStyle style;
};

struct PowerLegend {
  std::string label;
  bool drawn = false;  // false: the cap never lowers the roof for these types (legend says so)
};

// One chart being drawn. The steps run in the order of write(): the data decide the axes, lines and markers are
// drawn, then labels are placed most important first (ops, compute roofs, bandwidth lines, ridges) so that a
// crowded chart drops the least useful labels; the legend and notes close it.
struct Chart {
  Chart(const Report& r, const DeviceRoof& d) : report(r), device(d), lines(device_lines(d)) {}

  void group_peaks() {
    // Compute lines at one peak share a line and a label.
    std::vector<std::string> engines;
    for (const auto& line : lines.compute) {
      if (line.peak_flops_per_s <= 0) continue;
      auto engine_at = std::find(engines.begin(), engines.end(), line.engine);
      if (engine_at == engines.end()) engine_at = engines.insert(engines.end(), line.engine);
      auto same =
          std::find_if(peaks.begin(), peaks.end(), [&](const PeakGroup& g) { return g.peak == line.peak_flops_per_s; });
      if (same == peaks.end()) {
        const double ridge =
            device.main_bandwidth_bytes_per_s > 0 ? line.peak_flops_per_s / device.main_bandwidth_bytes_per_s : 0.0;
        peaks.push_back({line.peak_flops_per_s, line.label(),
                         engine_colour(static_cast<std::size_t>(engine_at - engines.begin())), ridge});
      } else {
        same->label += ", " + line.label();
      }
    }
  }

  void select_ops() {
    // Ops that a log-log chart can show: positive FLOP/s and a finite positive intensity.
    for (std::size_t i = 0; i < report.ops.size(); ++i) {
      const auto& op = report.ops[i];
      const double oi = op.oi_at(report.main_memory);
      const double perf = op.chart_flops_per_s();
      if (op.useful_flops == 0 || !(perf > 0)) {
        not_plotted.push_back(op.name);
      } else if (!std::isfinite(oi) || !(oi > 0)) {
        not_plotted.push_back(op.name);
      } else {
        plotted.push_back(i);
      }
    }
  }

  void choose_axes() {
    // Axis ranges: every op point and every ridge inside, whole decades.
    double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
    for (const auto i : plotted) {
      const auto& op = report.ops[i];
      x_min = std::min(x_min, op.oi_at(report.main_memory));
      x_max = std::max(x_max, op.oi_at(report.main_memory));
      y_min = std::min(y_min, op.chart_flops_per_s());
      y_max = std::max(y_max, op.chart_flops_per_s());
    }
    for (const auto& [level, oi] : level_intensities()) {
      (void)level;
      x_min = std::min(x_min, oi);
      x_max = std::max(x_max, oi);
    }
    for (const auto i : network_points()) {
      x_min = std::min(x_min, oi_net(report.ops[i]));
      x_max = std::max(x_max, oi_net(report.ops[i]));
      const double comm = report.ops[i].roofline.ceilings.comm.flops_per_s;
      if (comm > 0) y_min = std::min(y_min, comm);
    }
    for (const auto& group : peaks) {
      if (group.ridge_oi > 0) x_min = std::min(x_min, group.ridge_oi), x_max = std::max(x_max, group.ridge_oi);
      y_max = std::max(y_max, group.peak);
    }
    // Room for the roofs' labels right of the diagonals: they cross the roofs up to where the slowest meets the
    // highest roof, and beyond it a roof needs the width of its label (12 characters, about two thirds of a decade
    // at the narrowest axis) free of diagonals and of the markers of ops that reach it.
    constexpr double kRoofLabelRoom = 5;
    if (x_max > 0 && !peaks.empty()) {
      for (const auto& line : lines.bandwidth) {
        if (line.bandwidth_bytes_per_s > 0) {
          x_max = std::max(x_max, kRoofLabelRoom * peaks.front().peak / line.bandwidth_bytes_per_s);
        }
      }
    }
    if (x_max <= 0) x_min = 0.1, x_max = 1000;
    if (y_max <= 0) y_min = 1e9, y_max = 1e15;
    y_min = std::min(y_min, y_max);
    std::tie(x_lo, x_hi) = decade_range(x_min, x_max, 2.0, 4);
    // The y axis ends a little above the highest roof rather than at the next decade, which would waste up to a
    // decade of height; decade ticks stay where they are.
    std::tie(y_lo, std::ignore) = decade_range(y_min, y_max, 1.6, 4);
    y_hi = std::max(y_lo + 4, std::log10(y_max * 3.0));
    x_axis = {x_lo, x_hi, kPlotLeft, kPlotRight};
    y_axis = {y_lo, y_hi, kPlotBottom, kPlotTop};
    oi_lo = std::pow(10.0, x_lo);
    oi_hi = std::pow(10.0, x_hi);
    top_peak = peaks.empty() ? std::pow(10.0, y_hi) : peaks.front().peak;
  }

  // A simulated run measures bytes at every level, so each op also has an intensity per level (Nsight Compute's
  // hierarchical roofline): the op's achieved rate at each level's OI, one marker shape per level.
  [[nodiscard]] std::vector<std::pair<std::size_t, double>> level_intensities() const {
    std::vector<std::pair<std::size_t, double>> result;
    if (report.command != "run") return result;
    for (const auto i : plotted) {
      for (std::size_t level = 0; level < report.levels.size(); ++level) {
        if (report.levels[level] == report.main_memory) continue;
        const double oi = report.ops[i].oi_at(report.levels[level]);
        if (std::isfinite(oi) && oi > 0) result.emplace_back(level, oi);
      }
    }
    return result;
  }

  // A cluster run's rows that send over the network and do FLOPs (each rank's step): they are drawn a second time
  // at their network intensity OI_net = FLOPs / bytes sent (DESIGN.md section 5, communication-aware variant), where
  // the network line y = B_net x OI_net is their roof.
  [[nodiscard]] std::vector<std::size_t> network_points() const {
    std::vector<std::size_t> result;
    if (report.command != "run") return result;
    for (const auto i : plotted) {
      const double oi = oi_net(report.ops[i]);
      if (report.ops[i].network_bytes > 0 && std::isfinite(oi) && oi > 0) result.push_back(i);
    }
    return result;
  }

  void draw_network_points() {
    for (const auto i : network_points()) {
      const auto& op = report.ops[i];
      const double y = y_axis.map(op.chart_flops_per_s());
      const double main_x = x_axis.map(op.oi_at(report.main_memory));
      const double x = x_axis.map(oi_net(op));
      const std::string colour = bound_colour("network");
      body << "<path class=\"op-network-link\" d=\"M" << px(std::min(x, main_x)) << " " << px(y) << " H"
           << px(std::max(x, main_x)) << "\" stroke=\"" << colour
           << "\" stroke-width=\"0.8\" stroke-dasharray=\"3 2\"/>\n";
      body << "<path class=\"op-network\" data-op=\"" << op.name << "\" d=\"" << diamond(x, y, kPointRadius + 1.5)
           << "\" fill=\"" << colour << "\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n";
      placer.block(Box{x - kPointRadius - 3, y - kPointRadius - 3, x + kPointRadius + 3, y + kPointRadius + 3});
      const double comm = op.roofline.ceilings.comm.flops_per_s;
      if (comm > 0) {
        const double cy = y_axis.map(comm);
        body << "<path class=\"op-comm-ceiling\" d=\"M" << px(x - 7) << " " << px(cy) << " H" << px(x + 7)
             << "\" stroke=\"" << colour << "\" stroke-width=\"2.4\"/>\n";
        placer.block(Box{x - 8, cy - 3, x + 8, cy + 3});
      }
      drawn_network_points = true;
    }
    if (drawn_network_points) {
      notes.push_back(
          "Diamonds: a rank's step at its network intensity (useful FLOPs per byte the device sends); the bar above "
          "it is the communication-aware ceiling min(classic, OI_net x B_net).");
    }
  }

  [[nodiscard]] static std::string diamond(double x, double y, double r) {
    return "M" + px(x) + " " + px(y - r) + " L" + px(x + r) + " " + px(y) + " L" + px(x) + " " + px(y + r) + " L" +
           px(x - r) + " " + px(y) + " Z";
  }

  [[nodiscard]] static std::string level_marker(std::size_t level, double x, double y) {
    const double r = kPointRadius;
    switch (level % 3) {
      case 0:  // square
        return "M" + px(x - r) + " " + px(y - r) + " H" + px(x + r) + " V" + px(y + r) + " H" + px(x - r) + " Z";
      case 1:  // triangle
        return "M" + px(x) + " " + px(y - r - 1) + " L" + px(x + r + 1) + " " + px(y + r) + " L" + px(x - r - 1) + " " +
               px(y + r) + " Z";
      default:  // cross
        return "M" + px(x - r) + " " + px(y - r) + " L" + px(x + r) + " " + px(y + r) + " M" + px(x - r) + " " +
               px(y + r) + " L" + px(x + r) + " " + px(y - r);
    }
  }

  void draw_level_points() {
    if (report.command != "run") return;
    for (const auto i : plotted) {
      const auto& op = report.ops[i];
      const double y = y_axis.map(op.chart_flops_per_s());
      const double main_x = x_axis.map(op.oi_at(report.main_memory));
      for (std::size_t level = 0; level < report.levels.size(); ++level) {
        if (report.levels[level] == report.main_memory) continue;
        const double oi = op.oi_at(report.levels[level]);
        if (!std::isfinite(oi) || !(oi > 0)) continue;
        const double x = x_axis.map(oi);
        body << "<path class=\"op-level-link\" d=\"M" << px(std::min(x, main_x)) << " " << px(y) << " H"
             << px(std::max(x, main_x)) << "\" stroke=\"#999999\" stroke-width=\"0.6\" stroke-dasharray=\"2 2\"/>\n";
        placer.block(Box{x - kPointRadius - 1, y - kPointRadius - 1, x + kPointRadius + 1, y + kPointRadius + 1});
        body << "<path class=\"op-level\" data-level=\"" << report.levels[level] << "\" d=\""
             << level_marker(level, x, y) << "\" fill=\"none\" stroke=\"" << bound_colour(op.roofline.bound_by)
             << "\" stroke-width=\"1.3\"/>\n";
        if (std::find(drawn_levels.begin(), drawn_levels.end(), level) == drawn_levels.end()) {
          drawn_levels.push_back(level);
        }
      }
      // With the detailed DRAM model, the op's DRAM point: its DRAM-aware ceiling min(P, OI x B(h)) at the row-hit
      // rate h measured on its requests, a bar above (or at) the achieved point.
      const double dram_ceiling = op.roofline.ceilings[Variant::dram].flops_per_s;
      if (op.extra.contains("dram") && report.main_memory == "dram" && dram_ceiling > 0) {
        const double cy = y_axis.map(dram_ceiling);
        body << "<path class=\"op-dram\" d=\"M" << px(main_x - 6) << " " << px(cy) << " H" << px(main_x + 6)
             << "\" stroke=\"" << bound_colour("dram-rows") << "\" stroke-width=\"2\"/>\n";
        placer.block(Box{main_x - 7, cy - 2, main_x + 7, cy + 2});
        drawn_dram_points = true;
      }
    }
    std::sort(drawn_levels.begin(), drawn_levels.end());
  }

  void add_notes() {
    notes.push_back("x: useful FLOPs per " + report.bytes_basis + " byte at " + report.main_memory + "; y: " +
                    (report.command == "run" ? "achieved FLOP/s" : "the binding ceiling of the six variants") + ".");
    if (any_throttled(report)) notes.push_back(throttled_label_note());
    if (!not_plotted.empty()) {
      notes.push_back(fmt::format("Not on a log-log chart ({} op{}: 0 FLOP or no {} bytes): {}.", not_plotted.size(),
                                  not_plotted.size() == 1 ? "" : "s", report.main_memory,
                                  summarise_names(not_plotted, 8)));
    }
  }

  void merge_points() {
    // An op joins the first point (in drawing order) closer than kMergePx on both axes with the same bound. Points
    // are filed in cells of kMergePx, so that the candidates are those of the 3 x 3 cells around the op: merging
    // stays linear in the number of ops.
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> cells;
    const auto cell_of = [](double value) {
      return static_cast<std::int64_t>(std::floor(std::clamp(value, -1e6, 1e6) / kMergePx));
    };
    const auto key = [](std::int64_t cx, std::int64_t cy) {
      return (static_cast<std::uint64_t>(cx + (1 << 30)) << 32) | static_cast<std::uint64_t>(cy + (1 << 30));
    };
    for (const auto i : plotted) {
      const auto& op = report.ops[i];
      const double x = x_axis.map(op.oi_at(report.main_memory));
      const double y = y_axis.map(op.chart_flops_per_s());
      const auto cx = cell_of(x), cy = cell_of(y);
      std::size_t same = points.size();
      for (std::int64_t dx = -1; dx <= 1; ++dx) {
        for (std::int64_t dy = -1; dy <= 1; ++dy) {
          const auto found = cells.find(key(cx + dx, cy + dy));
          if (found == cells.end()) continue;
          for (const auto p : found->second) {
            const auto& point = points[p];
            if (p < same && std::abs(point.x - x) < kMergePx && std::abs(point.y - y) < kMergePx &&
                point.bound_by == op.roofline.bound_by) {
              same = p;
            }
          }
        }
      }
      if (same != points.size()) {
        points[same].ops.push_back(i);
      } else {
        cells[key(cx, cy)].push_back(points.size());
        points.push_back({{i}, x, y, op.roofline.bound_by});
      }
    }
  }

  void block_markers() {
    for (const auto& point : points) {
      placer.block(Box{point.x - kPointRadius - 1, point.y - kPointRadius - 1, point.x + kPointRadius + 1,
                       point.y + kPointRadius + 1});
    }
    for (const auto& group : peaks) {
      if (group.ridge_oi >= oi_lo && group.ridge_oi <= oi_hi) {
        const double rx = x_axis.map(group.ridge_oi), ry = y_axis.map(group.peak);
        placer.block(Box{rx - 5, ry - 5, rx + 5, ry + 5});
      }
    }
  }

  void draw_grid() {
    // Grid, ticks and tick labels: decades (labelled) and 2..9 (minor).
    svg::draw_log_grid(svg, {kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight}, x_axis, y_axis, kFontPx);
  }

  void draw_lines() {
    // Lines, clipped to the plot area.
    svg.raw("<g clip-path=\"url(#plot-clip)\">");
    // Diagonals y = B x OI, from the left edge up to the highest peak (a roof, not a line into the sky).
    std::size_t level_index = 0;
    for (const auto& line : lines.bandwidth) {
      if (line.bandwidth_bytes_per_s <= 0) continue;
      const auto style = bandwidth_style(line, report.main_memory, line.kind == BandwidthKind::level ? level_index : 0);
      if (line.kind == BandwidthKind::level) ++level_index;
      const double end_oi = std::min(oi_hi, top_peak / line.bandwidth_bytes_per_s);
      const double x0 = x_axis.map(oi_lo), y0 = y_axis.map(line.bandwidth_bytes_per_s * oi_lo);
      const double x1 = x_axis.map(end_oi), y1 = y_axis.map(line.bandwidth_bytes_per_s * end_oi);
      const int owner = static_cast<int>(diagonals.size());
      svg.line(x0, y0, x1, y1, style, "bandwidth", fmt::format(" data-line=\"bandwidth-{}\"", owner));
      placer.block_line(Segment{x0, y0, x1, y1, owner});
      diagonals.push_back({line.name, x0, y0, x1, y1, style});
    }
    // Compute roofs from the ridge with the main memory to the right edge.
    for (std::size_t g = 0; g < peaks.size(); ++g) {
      const auto& group = peaks[g];
      const double start = group.ridge_oi > oi_lo ? x_axis.map(std::min(group.ridge_oi, oi_hi)) : kPlotLeft;
      const double y = y_axis.map(group.peak);
      svg.line(start, y, kPlotRight, y, {group.colour, 2.0, ""}, "compute", fmt::format(" data-line=\"roof-{}\"", g));
      placer.block_line(Segment{start, y, kPlotRight, y, kRoofOwner + static_cast<int>(g)});
    }
    // Power-capped curves of the ops' main data types (by FLOPs), at most three.
    if (device.power_cap_w > 0) {
      std::map<std::pair<DataType, std::string>, Flops> flops_by_type;
      for (const auto& op : report.ops) {
        // Keyed by the engine that runs the op: a row without an engine of its own joins that engine's ops.
        const auto* chosen = device.compute.engine_for(op.dtype, op.engine);
        flops_by_type[{op.dtype, chosen != nullptr ? chosen->name : op.engine}] += op.useful_flops;
      }
      std::vector<std::pair<Flops, std::pair<DataType, std::string>>> ranked;
      for (const auto& [key, flops] : flops_by_type) ranked.push_back({flops, key});
      std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      // The curve is drawn only where the cap lowers the ceiling below the classic roof; elsewhere it would hide the
      // roof it equals. Types whose curves coincide (fp16 and bf16 on one engine) share one curve.
      static const char* kPowerDash[] = {"", "6 3", "2 2"};
      std::vector<std::string> drawn_paths;
      for (std::size_t i = 0; i < ranked.size() && power_curves.size() < 3; ++i) {
        const auto& [dtype, engine] = ranked[i].second;
        const FlopsPerSecond peak = peak_flops_per_s(device, dtype, engine, device.nominal_clock_hz);
        const auto curve = power_curve(device, dtype, engine, oi_lo, oi_hi, 64);
        std::string path;
        bool open = false;
        double last_x = 0, last_y = 0;
        for (const auto& point : curve) {
          const double classic = std::min(peak, point.oi * device.main_bandwidth_bytes_per_s);
          const bool binds = point.flops_per_s > 0 && point.flops_per_s < classic * (1 - 1e-6);
          if (binds) {
            const double px_x = x_axis.map(point.oi), px_y = y_axis.map(point.flops_per_s);
            path += (open ? " L" : (path.empty() ? "M" : " M")) + px(px_x) + " " + px(px_y);
            if (open) placer.block_line(Segment{last_x, last_y, px_x, px_y});
            last_x = px_x, last_y = px_y;
          }
          open = binds;
        }
        // Rows without an engine of their own (a cluster step's) name the engine the device chooses for the type.
        const auto* chosen = device.compute.engine_for(dtype, engine);
        const std::string label = fmt::format("{} {}", chosen != nullptr ? chosen->name : engine, to_string(dtype));
        const auto same = std::find(drawn_paths.begin(), drawn_paths.end(), path);
        if (same != drawn_paths.end()) {
          power_curves[static_cast<std::size_t>(same - drawn_paths.begin())].label += ", " + label;
          continue;
        }
        drawn_paths.push_back(path);
        if (power_curves.empty()) {
          // The cap alone (nominal state), thin: where it lies above the roofs it shows the headroom.
          std::string bound_path;
          double previous_x = 0, previous_y = 0;
          for (const auto& point : curve) {
            const double bound = nominal_power_bound_flops_per_s(device, dtype, engine, point.oi);
            if (!(bound > 0)) continue;
            const double bound_x = x_axis.map(point.oi), bound_y = y_axis.map(bound);
            if (!bound_path.empty()) placer.block_line(Segment{previous_x, previous_y, bound_x, bound_y});
            bound_path += (bound_path.empty() ? "M" : " L") + px(bound_x) + " " + px(bound_y);
            previous_x = bound_x, previous_y = bound_y;
          }
          if (!bound_path.empty()) {
            body << "<path class=\"power-bound\" d=\"" << bound_path
                 << "\" fill=\"none\" stroke=\"#D55E00\" stroke-width=\"1\" stroke-dasharray=\"1 3\"/>\n";
            power_bound_label = fmt::format("cap alone, nominal V ({})", label);
          }
        }
        if (!path.empty()) {
          body << "<path class=\"power\" d=\"" << path << "\" fill=\"none\" stroke=\"#D55E00\" stroke-width=\"2.2\""
               << dash_attr(kPowerDash[power_curves.size()]) << "/>\n";
        }
        power_curves.push_back({label, !path.empty()});
      }
    }
    svg.raw("</g>");
  }

  void draw_markers() {
    // Ridge points: where each compute roof meets the main-memory line.
    for (const auto& group : peaks) {
      if (group.ridge_oi < oi_lo || group.ridge_oi > oi_hi) continue;
      const double rx = x_axis.map(group.ridge_oi), ry = y_axis.map(group.peak);
      body << "<path class=\"ridge\" d=\"M" << px(rx) << " " << px(ry - 5) << " L" << px(rx + 5) << " " << px(ry)
           << " L" << px(rx) << " " << px(ry + 5) << " L" << px(rx - 5) << " " << px(ry)
           << " Z\" fill=\"#FFFFFF\" stroke=\"#000000\" stroke-width=\"1.3\"/>\n";
    }

    // Op points.
    for (const auto& point : points) {
      body << "<circle class=\"op\" cx=\"" << px(point.x) << "\" cy=\"" << px(point.y) << "\" r=\"" << px(kPointRadius)
           << "\" data-ops=\"" << point.ops.size() << "\" fill=\"" << bound_colour(point.bound_by)
           << "\" stroke=\"#FFFFFF\" stroke-width=\"1\"/>\n";
    }
  }

  void place_op_labels() {
    std::vector<OpLabelPoint> label_points;
    label_points.reserve(points.size());
    for (const auto& point : points) {
      OpLabelPoint label{point.x, point.y, {}};
      for (const auto i : point.ops) label.names.push_back(op_chart_label(report.ops[i]));
      label_points.push_back(std::move(label));
    }
    op_key = roofsim::place_op_labels(label_points, placer, svg, kOpFontPx);
  }

  void place_compute_labels() {
    // Each roof's label lies along its own line, just above it, else just below it: at the right edge first, then
    // further left while most of it stays over the roof; else in line with the roof, left of where it starts. Other
    // lines, markers and labels are never covered, so that a label cannot be read as another roof's. Where the full
    // label finds no room (diagonals cross the lower roofs), the peak alone is written; the legend names it.
    for (std::size_t g = 0; g < peaks.size(); ++g) {
      const auto& group = peaks[g];
      const double y = y_axis.map(group.peak);
      const double roof_start = group.ridge_oi > oi_lo ? x_axis.map(std::min(group.ridge_oi, oi_hi)) : kPlotLeft;
      const int owner = kRoofOwner + static_cast<int>(g);
      const std::string value = format_si(group.peak, "FLOP/s");
      bool placed = false;
      for (const std::string& text : {fmt::format("{}  {}", group.label, value), value}) {
        const double width = text_width_px(text, kSmallFontPx);
        std::vector<std::pair<double, double>> candidates;  // (right end, baseline)
        for (double right = kPlotRight - 6; right - std::max(roof_start, right - width) >= 0.6 * width; right -= 10) {
          candidates.push_back({right, y + kAboveLinePx});
          candidates.push_back({right, y + kBelowLinePx});
        }
        candidates.push_back({roof_start - 9, y + 0.3 * kSmallFontPx});
        for (const auto& [right, baseline] : candidates) {
          if (!placer.try_place({text_box(text, right, baseline, kSmallFontPx, Anchor::end)}, owner)) continue;
          svg.text(right, baseline, text, kSmallFontPx, Anchor::end, "compute-label", group.colour, 0, true,
                   fmt::format(" data-line=\"roof-{}\"", g));
          placed = true;
          break;
        }
        if (placed) break;
      }
      if (placed) continue;
      // No room inside the plot (diagonals cross the lower roofs): the peak at the roof's right end, outside the
      // plot, where nothing else is drawn; the legend moves right to make room.
      const double x = kPlotRight + 4, baseline = y + 0.3 * kSmallFontPx;
      const auto box = text_box(value, x, baseline, kSmallFontPx, Anchor::start);
      if (!margin_placer.try_place({box})) continue;
      svg.text(x, baseline, value, kSmallFontPx, Anchor::start, "compute-label", group.colour, 0, true,
               fmt::format(" data-line=\"roof-{}\"", g));
      margin_right = std::max(margin_right, box.x1);
    }
  }

  // Whether a diagonal other than `line` runs through the band of offsets [from, to] (px along the text's upward
  // normal (nx, ny) at the point (x, y) of `line`) where a label would be drawn, within the label's horizontal extent.
  // Every diagonal is y = B x OI on log-log axes, so they are parallel and one signed distance holds along the label.
  [[nodiscard]] bool crosses_other_line(const PlacedLine& line, double x, double y, double nx, double ny, double from,
                                        double to, double half_extent_x) const {
    for (const auto& other : diagonals) {
      if (&other == &line) continue;
      if (other.x1 < x - half_extent_x || other.x0 > x + half_extent_x) continue;
      const double distance = (other.x0 - x) * nx + (other.y0 - y) * ny;
      if (distance >= from && distance <= to) return true;
    }
    return false;
  }

  void place_bandwidth_labels() {
    const double angle_scale = (kPlotHeight / (y_hi - y_lo)) / (kPlotWidth / (x_hi - x_lo));
    const double angle_deg = -std::atan(angle_scale) * 180.0 / M_PI;
    const double radians = angle_deg * M_PI / 180.0;
    // The text's upward normal (rotated_text_boxes' convention). The glyphs span about 0.8 em above the baseline.
    const double nx = std::sin(radians), ny = -std::cos(radians);
    const double glyphs_px = 0.8 * kSmallFontPx, gap_px = 3.0;
    for (std::size_t d = 0; d < diagonals.size(); ++d) {
      const auto& line = diagonals[d];
      const std::string text = line.label;
      const double half_extent_x = 0.5 * text_width_px(text, kSmallFontPx) * std::cos(radians);
      // The usual places first, then every 4% of the line (a line whose left part lies below the plot or among the
      // points still finds a place).
      std::vector<double> places{0.18, 0.3, 0.42, 0.54, 0.66, 0.1, 0.78};
      for (int step = 1; step < 25; ++step) places.push_back(0.04 * step);
      bool placed = false;
      for (const double t : places) {
        const double x = line.x0 + (line.x1 - line.x0) * t;
        const double y = line.y0 + (line.y1 - line.y0) * t;
        if (x < kPlotLeft || y > kPlotBottom - 4 || y < kPlotTop + 4) continue;
        // Just above the line, else just below it; not where another line runs through the text (lines a few
        // percent apart, such as shared memory and the latency line, are drawn almost on top of each other).
        for (const double baseline : {gap_px, -gap_px - glyphs_px}) {
          if (crosses_other_line(line, x, y, nx, ny, baseline - 1.0, baseline + glyphs_px + 1.0, half_extent_x)) {
            continue;
          }
          const double ox = x + nx * baseline, oy = y + ny * baseline;
          if (!placer.try_place(rotated_text_boxes(text, ox, oy, kSmallFontPx, angle_deg), static_cast<int>(d))) {
            continue;
          }
          svg.text(ox, oy, text, kSmallFontPx, Anchor::middle, "bandwidth-label", line.style.colour, angle_deg, true,
                   fmt::format(" data-line=\"bandwidth-{}\"", d));
          placed = true;
          break;
        }
        if (placed) break;
      }
    }
  }

  void place_ridge_labels() {
    for (const auto& group : peaks) {
      if (group.ridge_oi < oi_lo || group.ridge_oi > oi_hi) continue;
      const double rx = x_axis.map(group.ridge_oi), ry = y_axis.map(group.peak);
      const std::string text = fmt::format("{:.3g} FLOP/B", group.ridge_oi);
      for (const auto& [tx, ty, anchor] : {std::tuple<double, double, Anchor>{rx - 7, ry + 14, Anchor::end},
                                           {rx + 7, ry + 14, Anchor::start},
                                           {rx, ry + 18, Anchor::middle}}) {
        if (!placer.try_place({text_box(text, tx, ty, kSmallFontPx, anchor)})) continue;
        svg.text(tx, ty, text, kSmallFontPx, anchor, "ridge-label", "#000000", 0, true);
        break;
      }
    }
  }

  void write(std::ostream& stream) {
    group_peaks();
    select_ops();
    choose_axes();
    add_notes();
    merge_points();
    block_markers();
    draw_grid();
    draw_lines();
    draw_level_points();
    draw_network_points();
    draw_markers();
    // Lines' labels first: they are few and say what the chart is measured against; op labels take the room left,
    // and a crowded chart counts the ops it cannot label.
    place_compute_labels();
    place_bandwidth_labels();
    place_ridge_labels();
    place_op_labels();

    // Legend, on the right of the plot.
    const double legend_left = std::max(kLegendLeft, margin_right + 14);
    svg::Legend legend(legend_left, kPlotTop + 6, kFontPx, kSmallFontPx);
    legend.title("Compute peaks");
    for (const auto& group : peaks)
      legend.line({group.colour, 2.0, ""}, group.label + ": " + format_si(group.peak, "FLOP/s"));
    legend.gap(6);
    legend.title("Bandwidths (y = B x OI)");
    std::size_t level_index = 0;
    for (const auto& line : lines.bandwidth) {
      if (line.bandwidth_bytes_per_s <= 0) continue;
      const auto style = bandwidth_style(line, report.main_memory, line.kind == BandwidthKind::level ? level_index : 0);
      if (line.kind == BandwidthKind::level) ++level_index;
      std::string name = line.name;
      if (line.kind == BandwidthKind::latency) name = "latency (Little's law)";
      if (line.kind == BandwidthKind::network) name = "network (x = FLOP/net B)";
      legend.line(style, name + ": " + format_si(line.bandwidth_bytes_per_s, "B/s"));
    }
    static const char* kPowerDashLegend[] = {"", "6 3", "2 2"};
    for (std::size_t i = 0; i < power_curves.size(); ++i) {
      legend.line({"#D55E00", 2.2, kPowerDashLegend[i]},
                  fmt::format("power cap {}: {}{}", format_si(device.power_cap_w, "W"), power_curves[i].label,
                              power_curves[i].drawn ? "" : " (never below the roof)"));
    }
    if (!power_bound_label.empty()) legend.line({"#D55E00", 1.0, "1 3"}, power_bound_label);
    legend.gap(6);
    legend.title("Markers");
    const double ly = legend.y();
    legend.out().raw("<path d=\"M" + px(legend_left + 14) + " " + px(ly - 5) + " L" + px(legend_left + 19) + " " +
                     px(ly) + " L" + px(legend_left + 14) + " " + px(ly + 5) + " L" + px(legend_left + 9) + " " +
                     px(ly) + " Z\" fill=\"#FFFFFF\" stroke=\"#000000\" stroke-width=\"1.3\"/>");
    legend.out().text(legend_left + 36, ly + 4, "ridge point (OI = P / B_" + report.main_memory + ")", kSmallFontPx,
                      Anchor::start, "legend-text");
    legend.gap(16);
    std::vector<std::string> categories;
    for (const auto& point : points) {
      const auto category = bound_category(point.bound_by);
      if (std::find(categories.begin(), categories.end(), category) == categories.end()) categories.push_back(category);
    }
    std::sort(categories.begin(), categories.end());
    for (const auto& category : categories) {
      const std::string example = category == "compute"  ? "compute:fp16"
                                  : category == "memory" ? "memory:dram"
                                                         : category;
      legend.circle(bound_colour(example), kPointRadius, "op bound by " + category);
    }

    for (const auto level : drawn_levels) {
      const double y = legend.y();
      legend.out().raw("<path d=\"" + level_marker(level, legend_left + 14, y) +
                       "\" fill=\"none\" stroke=\"#444444\" stroke-width=\"1.3\"/>");
      legend.out().text(legend_left + 36, y + 4, "op at its " + report.levels[level] + " intensity (measured bytes)",
                        kSmallFontPx, Anchor::start, "legend-text");
      legend.gap(16);
    }

    if (drawn_network_points) {
      const double y = legend.y();
      legend.out().raw("<path d=\"" + diamond(legend_left + 14, y, kPointRadius + 1.5) + "\" fill=\"" +
                       bound_colour("network") + "\" stroke=\"#000000\" stroke-width=\"0.8\"/>");
      legend.out().text(legend_left + 36, y + 4, "step at its network intensity (FLOP per byte sent)", kSmallFontPx,
                        Anchor::start, "legend-text");
      legend.gap(16);
      const double by = legend.y();
      legend.out().raw("<path d=\"M" + px(legend_left + 7) + " " + px(by) + " H" + px(legend_left + 21) +
                       "\" stroke=\"" + bound_colour("network") + "\" stroke-width=\"2.4\"/>");
      legend.out().text(legend_left + 36, by + 4, "its communication-aware ceiling", kSmallFontPx, Anchor::start,
                        "legend-text");
      legend.gap(16);
    }

    if (drawn_dram_points) {
      const double y = legend.y();
      legend.out().raw("<path d=\"M" + px(legend_left + 8) + " " + px(y) + " H" + px(legend_left + 20) +
                       "\" stroke=\"" + bound_colour("dram-rows") + "\" stroke-width=\"2\"/>");
      legend.out().text(legend_left + 36, y + 4, "op's DRAM-aware ceiling at its measured row-hit rate", kSmallFontPx,
                        Anchor::start, "legend-text");
      legend.gap(16);
    }

    draw_op_key(legend, op_key);

    svg::LayoutPage page;
    page.title = "Roofline: " + report.workload_name + " on " + report.hardware_name;
    page.subtitle = fmt::format("roofsim {}: {} ops; {} bytes; six ceilings per op, the binding one plotted",
                                report.command, report.ops.size(), report.bytes_basis);
    page.x_title = "Operational intensity (FLOP/B, " + report.bytes_basis + " " + report.main_memory + " bytes)";
    page.y_title = "Performance (FLOP/s)";
    page.notes = notes;
    page.frame_over_body = true;
    svg::write_layout_page(stream, page, body.str(), legend);
  }

  const Report& report;
  const DeviceRoof& device;
  const RooflineLines lines;
  std::vector<PeakGroup> peaks;                   // compute lines, one per distinct peak, descending
  std::vector<std::size_t> plotted;               // ops a log-log chart can show
  std::vector<std::string> not_plotted;           // the others, for the notes
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;  // axis ends, log10
  LogAxis x_axis, y_axis;
  double oi_lo = 0, oi_hi = 0;            // x range in FLOP/B
  std::vector<std::size_t> drawn_levels;  // levels with per-level op markers (run reports)
  bool drawn_dram_points = false;         // DRAM-aware ceilings at measured row-hit rates (detailed DRAM runs)
  bool drawn_network_points = false;      // cluster steps at their network intensity
  double top_peak = 0;                    // the highest compute roof: bandwidth lines end there
  std::vector<std::string> notes;
  std::vector<PlotPoint> points;
  OpKey op_key;  // numbered and unlabelled points, for the legend
  LabelPlacer placer{Box{kPlotLeft + 2, kPlotTop + 2, kPlotRight - 2, kPlotBottom - 2}};
  // Roof labels that find no room inside the plot go right of it; the legend starts after them.
  LabelPlacer margin_placer{Box{kPlotRight + 2, kPlotTop - 12, kPlotRight + 200, kPlotBottom + 12}};
  double margin_right = 0;
  std::ostringstream body;  // everything inside the plot, written between the frame's two rectangles
  SvgOut svg{body};
  std::vector<PlacedLine> diagonals;
  std::vector<PowerLegend> power_curves;
  std::string power_bound_label;
};

}  // namespace

std::string decade_label(int exponent) {
  if (exponent >= -3 && exponent < 0) return "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + "1";
  if (exponent >= 0 && exponent < 3) return "1" + std::string(static_cast<std::size_t>(exponent), '0');
  static const char* kPrefixes[] = {"k", "M", "G", "T", "P", "E"};
  if (exponent >= 3 && exponent < 21) {
    return "1" + std::string(static_cast<std::size_t>(exponent % 3), '0') + kPrefixes[exponent / 3 - 1];
  }
  return fmt::format("1e{}", exponent);
}

ChartWork write_roofline_svg(const Report& report, const DeviceRoof& device, std::ostream& stream) {
  Chart chart(report, device);
  chart.write(stream);
  return {chart.placer.comparisons()};
}

}  // namespace roofsim
