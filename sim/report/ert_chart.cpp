#include "sim/report/ert_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <tuple>

#include "sim/config/quantity.h"
#include "sim/report/svg_primitives.h"

namespace roofsim {

namespace {

using svg::LineStyle;
using svg::LogAxis;
using svg::px;
using namespace svg::layout;

// A colour per band, from the units outward (Okabe and Ito's palette, as the other charts); DRAM black, as the main
// memory's line on roofline.svg; points between bands grey.
std::string band_colour(const ErtReport& report, const std::string& band) {
  static const char* kColours[] = {"#009E73", "#56B4E9", "#E69F00", "#CC79A7", "#D55E00"};
  if (band.empty()) return "#999999";
  if (band == "dram") return "#000000";
  for (std::size_t b = 0; b < report.bands.size(); ++b) {
    if (report.bands[b].level == band) return kColours[std::min<std::size_t>(b, 4)];
  }
  return "#999999";
}

// Compute ceilings at one value share a line and a label ("matrix fp8, matrix int8").
struct ComputeGroup {
  double flops_per_s = 0;
  std::string label;
};

std::vector<ComputeGroup> group(const std::vector<ErtCeiling>& ceilings, bool measured) {
  std::vector<ComputeGroup> groups;
  for (const auto& ceiling : ceilings) {
    const double value = measured ? ceiling.measured : ceiling.analytic;
    if (!(value > 0)) continue;
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const ComputeGroup& g) { return std::abs(g.flops_per_s - value) <= 1e-9 * value; });
    if (same == groups.end()) {
      groups.push_back({value, ceiling.name});
    } else {
      same->label += ", " + ceiling.name;
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const ComputeGroup& a, const ComputeGroup& b) { return a.flops_per_s > b.flops_per_s; });
  return groups;
}

struct ErtChart {
  explicit ErtChart(const ErtReport& r) : report(r) {}

  void choose_axes() {
    double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
    for (const auto& point : report.points) {
      if (!point.measured || !(point.flops_per_s > 0)) continue;
      x_min = std::min(x_min, point.intensity), x_max = std::max(x_max, point.intensity);
      y_min = std::min(y_min, point.flops_per_s), y_max = std::max(y_max, point.flops_per_s);
    }
    for (const auto& ceiling : report.compute_ceilings) y_max = std::max(y_max, ceiling.analytic);
    if (x_max <= 0) x_min = 0.1, x_max = 1000;
    if (y_max <= 0) y_min = 1e9, y_max = 1e15;
    std::tie(x_lo, x_hi) = svg::decade_range(x_min, x_max, 2.0, 4);
    std::tie(y_lo, std::ignore) = svg::decade_range(std::min(y_min, y_max), y_max, 1.6, 4);
    y_hi = std::max(y_lo + 4, std::log10(y_max * 3.0));
    x_axis = {x_lo, x_hi, kPlotLeft, kPlotRight};
    y_axis = {y_lo, y_hi, kPlotBottom, kPlotTop};
  }

  // y = B x OI from the left edge up to `top`, then nothing (a roof, not a line into the sky).
  void diagonal(double bandwidth, double top, const LineStyle& style, const std::string& cls, const std::string& name) {
    if (!(bandwidth > 0) || !(top > 0)) return;
    const double oi_left = std::pow(10.0, x_lo);
    const double oi_top = std::min(top / bandwidth, std::pow(10.0, x_hi));
    if (oi_top <= oi_left) return;
    body << "<path class=\"" << cls << "\" data-name=\"" << svg::escape(name) << "\" data-bytes-per-s=\""
         << fmt::format("{:.9g}", bandwidth) << "\" d=\"M" << px(x_axis.map(oi_left)) << " "
         << px(y_axis.map(bandwidth * oi_left)) << " L" << px(x_axis.map(oi_top)) << " "
         << px(y_axis.map(bandwidth * oi_top)) << "\" fill=\"none\" stroke=\"" << style.colour << "\" stroke-width=\""
         << px(style.width) << "\"" << svg::dash_attr(style.dash) << "/>\n";
  }

  // y = P from where the fastest memory line meets it (or the left edge) to the right edge.
  void horizontal(double flops_per_s, double fastest_bandwidth, const LineStyle& style, const std::string& cls,
                  const std::string& name) {
    if (!(flops_per_s > 0)) return;
    double oi_left = std::pow(10.0, x_lo);
    if (fastest_bandwidth > 0) oi_left = std::max(oi_left, flops_per_s / fastest_bandwidth);
    const double oi_right = std::pow(10.0, x_hi);
    if (oi_left >= oi_right) return;
    const double y = y_axis.map(flops_per_s);
    body << "<path class=\"" << cls << "\" data-name=\"" << svg::escape(name) << "\" data-flops-per-s=\""
         << fmt::format("{:.9g}", flops_per_s) << "\" d=\"M" << px(x_axis.map(oi_left)) << " " << px(y) << " H"
         << px(x_axis.map(oi_right)) << "\" fill=\"none\" stroke=\"" << style.colour << "\" stroke-width=\""
         << px(style.width) << "\"" << svg::dash_attr(style.dash) << "/>\n";
  }

  void draw_ceilings() {
    const auto measured_compute = group(report.compute_ceilings, true);
    const auto analytic_compute = group(report.compute_ceilings, false);
    const double top_measured = measured_compute.empty() ? 0 : measured_compute.front().flops_per_s;
    const double top_analytic = analytic_compute.empty() ? 0 : analytic_compute.front().flops_per_s;
    double fastest_measured = 0, fastest_analytic = 0;
    for (const auto& ceiling : report.memory_ceilings) {
      fastest_measured = std::max(fastest_measured, ceiling.measured);
      fastest_analytic = std::max(fastest_analytic, ceiling.analytic);
    }
    svg.raw("<g clip-path=\"url(#plot-clip)\">");
    const LineStyle analytic_style{"#888888", 1.2, "6 4"};
    for (const auto& ceiling : report.memory_ceilings) {
      diagonal(ceiling.analytic, top_analytic, {band_colour(report, ceiling.name), 1.2, "6 4"}, "analytic-ceiling",
               ceiling.name);
    }
    for (const auto& g : analytic_compute) {
      horizontal(g.flops_per_s, fastest_analytic, analytic_style, "analytic-ceiling", g.label);
    }
    for (const auto& ceiling : report.memory_ceilings) {
      diagonal(ceiling.measured, top_measured, {band_colour(report, ceiling.name), 2.2, ""}, "measured-ceiling",
               ceiling.name);
    }
    for (const auto& g : measured_compute) {
      horizontal(g.flops_per_s, fastest_measured, {"#0072B2", 2.0, ""}, "measured-ceiling", g.label);
    }
    svg.raw("</g>");

    legend.title("Measured ceilings (solid)");
    for (const auto& ceiling : report.memory_ceilings) {
      if (!(ceiling.measured > 0)) continue;
      legend.line({band_colour(report, ceiling.name), 2.2, ""},
                  fmt::format("{} {} ({:.3f} of {})", ceiling.name, format_si(ceiling.measured, "B/s"), ceiling.ratio,
                              format_si(ceiling.analytic, "B/s")));
    }
    for (const auto& g : measured_compute) {
      legend.line({"#0072B2", 2.0, ""}, fmt::format("{}: {}", g.label, format_si(g.flops_per_s, "FLOP/s")));
    }
    legend.gap(6);
    legend.title("Analytic ceilings (dashed)");
    for (const auto& ceiling : report.memory_ceilings) {
      if (!(ceiling.analytic > 0)) continue;
      legend.line({band_colour(report, ceiling.name), 1.2, "6 4"},
                  fmt::format("{} {}", ceiling.name, format_si(ceiling.analytic, "B/s")));
    }
    for (const auto& g : analytic_compute) {
      legend.line(analytic_style, fmt::format("{}: {}", g.label, format_si(g.flops_per_s, "FLOP/s")));
    }
  }

  void draw_points() {
    std::vector<std::string> bands_drawn;
    bool compute_drawn = false;
    for (const auto& point : report.points) {
      if (!point.measured || !(point.flops_per_s > 0)) continue;
      const double x = x_axis.map(point.intensity), y = y_axis.map(point.flops_per_s);
      const std::string colour = band_colour(report, point.band);
      const auto data = fmt::format(
          " data-index=\"{}\" data-band=\"{}\" data-engine=\"{}\" data-dtype=\"{}\" data-working-set-bytes=\"{}\" "
          "data-intensity=\"{:.9g}\" data-flops-per-s=\"{:.9g}\"",
          point.index, point.band, svg::escape(point.engine), to_string(point.dtype), point.working_set_bytes,
          point.intensity, point.flops_per_s);
      if (point.purpose == ErtPurpose::compute) {
        // Compute points: hollow squares, so that the types' points at one intensity stay visible.
        const double r = kPointRadius;
        body << "<rect class=\"point point-compute\"" << data << " x=\"" << px(x - r) << "\" y=\"" << px(y - r)
             << "\" width=\"" << px(2 * r) << "\" height=\"" << px(2 * r) << "\" fill=\"none\" stroke=\"#0072B2\" "
             << "stroke-width=\"1.3\"/>\n";
        compute_drawn = true;
      } else {
        body << "<circle class=\"point\"" << data << " cx=\"" << px(x) << "\" cy=\"" << px(y) << "\" r=\""
             << px(kPointRadius - 0.5) << "\" fill=\"" << colour << "\" fill-opacity=\"0.8\" stroke=\"#FFFFFF\" "
             << "stroke-width=\"0.8\"/>\n";
        if (std::find(bands_drawn.begin(), bands_drawn.end(), point.band) == bands_drawn.end()) {
          bands_drawn.push_back(point.band);
        }
      }
    }
    legend.gap(6);
    legend.title("Points (working set's band)");
    for (const auto& band : report.bands) {
      if (std::find(bands_drawn.begin(), bands_drawn.end(), band.level) == bands_drawn.end()) continue;
      legend.circle(band_colour(report, band.level), kPointRadius - 0.5,
                    fmt::format("{} ({})", report.types[report.memory_type].label(), band.level));
    }
    if (std::find(bands_drawn.begin(), bands_drawn.end(), std::string()) != bands_drawn.end()) {
      legend.circle(band_colour(report, ""), kPointRadius - 0.5, "between bands");
    }
    if (compute_drawn) legend.circle("#0072B2", kPointRadius - 1.5, "each engine and type, high intensity (squares)");
  }

  void write(std::ostream& stream) {
    choose_axes();
    svg::draw_log_grid(svg, {kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight}, x_axis, y_axis, kFontPx);
    draw_ceilings();
    draw_points();
    std::vector<std::string> notes = {
        "x: FLOPs per byte loaded and stored by ERT's kernel (flops_per_element / (2 x element size)); y: FLOP/s of "
        "the simulated kernel (the better mean of its two runs). Measured ceilings are the best rates over the points "
        "(memory: per "
        "band of working sets; compute: per engine and data type)."};
    notes.insert(notes.end(), report.notes.begin(), report.notes.end());
    svg::LayoutPage page;
    page.title = "Empirical roofline (ERT) of the simulated " + report.device;
    page.subtitle = fmt::format("roofsim ert: {} points, {} DRAM model{}", report.measured_points,
                                report.dram_model.empty() ? "no" : report.dram_model, report.quick ? ", quick" : "");
    page.x_title = "Operational intensity (FLOP/B loaded and stored)";
    page.y_title = "Performance (FLOP/s)";
    page.notes = notes;
    svg::write_layout_page(stream, page, body.str(), legend);
  }

  const ErtReport& report;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  LogAxis x_axis, y_axis;
  std::ostringstream body;
  svg::SvgOut svg{body};
  svg::Legend legend{kLegendLeft, kPlotTop + 6, kFontPx, kSmallFontPx};
};

}  // namespace

void write_ert_svg(const ErtReport& report, std::ostream& out) {
  ErtChart(report).write(out);
}

}  // namespace roofsim
