#include "sim/sweep/pareto_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "sim/core/output_file.h"
#include "sim/report/svg_primitives.h"

namespace roofsim {

namespace {

struct Placed {
  double x = 0, y = 0;
  bool front = false;
  std::string label;
  std::string group;
};

// One colour per workload group, in the order the groups first appear.
constexpr const char* kGroupColours[] = {"#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98", "#17a589"};

std::optional<double> objective_value(const SweepSpec& spec, const SweepPoint& point, const PointResult& result,
                                      const std::string& objective) {
  if (!point.design) return std::nullopt;
  if (objective == "area") return point.design->area_mm2;
  if (objective == "cost") return point.design->cost_usd;
  if (objective == "tdp") return point.design->tdp_w;
  const auto metric = std::find(spec.metrics.begin(), spec.metrics.end(), objective) - spec.metrics.begin();
  return result.total.numbers.at(static_cast<std::size_t>(metric));
}

std::string axis_title(const std::string& objective) {
  if (objective == "area") return "die area (mm2)";
  if (objective == "cost") return "device cost (USD)";
  if (objective == "tdp") return "derived TDP (W)";
  return objective;
}

}  // namespace

bool write_pareto_chart(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        const std::vector<PointResult>& results, const std::filesystem::path& dir) {
  if (spec.pareto.size() < 2) return false;
  const auto front = pareto_marks(spec, points, results);
  std::vector<Placed> placed;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (results[i].status != PointStatus::ok) continue;
    const auto x = objective_value(spec, points[i], results[i], spec.pareto[0]);
    const auto y = objective_value(spec, points[i], results[i], spec.pareto[1]);
    if (!x || !y) continue;
    std::string label = "p" + std::to_string(points[i].index);
    for (const auto& value : points[i].values) label += " " + value;
    if (!points[i].take_value.empty()) label += " -> " + points[i].take_value;
    placed.push_back({*x, *y, front[i], label, pareto_group(spec, points[i])});
  }
  constexpr double kWidth = 900, kHeight = 560, kLeft = 90, kRight = 260, kTop = 50, kBottom = 60;
  double x_lo = std::numeric_limits<double>::max(), x_hi = std::numeric_limits<double>::lowest();
  double y_lo = x_lo, y_hi = x_hi;
  for (const auto& p : placed) {
    x_lo = std::min(x_lo, p.x), x_hi = std::max(x_hi, p.x);
    y_lo = std::min(y_lo, p.y), y_hi = std::max(y_hi, p.y);
  }
  if (placed.empty()) x_lo = y_lo = 0, x_hi = y_hi = 1;
  const auto pad = [](double& lo, double& hi) {
    const double span = hi > lo ? hi - lo : std::max(std::abs(hi), 1.0);
    lo -= 0.08 * span;
    hi += 0.08 * span;
  };
  pad(x_lo, x_hi);
  pad(y_lo, y_hi);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto sx = [&](double x) { return kLeft + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  const auto sy = [&](double y) { return kTop + plot_h - (y - y_lo) / (y_hi - y_lo) * plot_h; };

  write_output_file(dir / "pareto.svg", [&](std::ostream& svg) {
    svg << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif">)",
                       kWidth, kHeight)
        << "\n";
    svg << fmt::format(R"(<text x="{}" y="24" font-size="15">{}: Pareto front of {} and {} (both minimized)</text>)",
                       kLeft, svg::escape(spec.name), svg::escape(spec.pareto[0]), svg::escape(spec.pareto[1]))
        << "\n";
    svg << fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)", kLeft, kTop,
                       svg::px(plot_w), svg::px(plot_h))
        << "\n";
    for (int tick = 0; tick <= 4; ++tick) {
      const double x = x_lo + (x_hi - x_lo) * tick / 4, y = y_lo + (y_hi - y_lo) * tick / 4;
      svg << fmt::format(R"(<text x="{}" y="{}" font-size="11" text-anchor="middle">{:.4g}</text>)", svg::px(sx(x)),
                         svg::px(kTop + plot_h + 16), x)
          << "\n";
      svg << fmt::format(R"(<text x="{}" y="{}" font-size="11" text-anchor="end">{:.4g}</text>)", svg::px(kLeft - 6),
                         svg::px(sy(y) + 4), y)
          << "\n";
    }
    svg << fmt::format(R"(<text x="{}" y="{}" font-size="12" text-anchor="middle">{}</text>)",
                       svg::px(kLeft + plot_w / 2), svg::px(kHeight - 18), svg::escape(axis_title(spec.pareto[0])))
        << "\n";
    svg << fmt::format(
               R"svg(<text x="16" y="{}" font-size="12" transform="rotate(-90 16 {})" text-anchor="middle">{}</text>)svg",
               svg::px(kTop + plot_h / 2), svg::px(kTop + plot_h / 2), svg::escape(axis_title(spec.pareto[1])))
        << "\n";
    std::vector<std::string> groups;
    for (const auto& p : placed) {
      if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
    }
    const auto colour = [&](const std::string& group) {
      const auto at = static_cast<std::size_t>(std::find(groups.begin(), groups.end(), group) - groups.begin());
      return kGroupColours[at % std::size(kGroupColours)];
    };
    for (const auto& group : groups) {
      std::vector<Placed> on_front;
      for (const auto& p : placed) {
        if (p.front && p.group == group) on_front.push_back(p);
      }
      std::sort(on_front.begin(), on_front.end(), [](const Placed& a, const Placed& b) { return a.x < b.x; });
      if (on_front.size() < 2) continue;
      std::string path;
      for (const auto& p : on_front) path += (path.empty() ? "M" : " L") + svg::px(sx(p.x)) + " " + svg::px(sy(p.y));
      svg << fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2"/>)", path, colour(group)) << "\n";
    }
    double legend_y = kTop + 8;
    for (const auto& p : placed) {
      svg << fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="{}"><title>{}</title></circle>)",
                         svg::px(sx(p.x)), svg::px(sy(p.y)), p.front ? 6 : 4, colour(p.group), p.front ? "1" : "0.45",
                         svg::escape(p.label))
          << "\n";
      if (p.front && legend_y < kHeight - kBottom) {
        svg << fmt::format(R"(<text x="{}" y="{}" font-size="11" fill="{}">{}</text>)", svg::px(kWidth - kRight + 12),
                           svg::px(legend_y), colour(p.group), svg::escape(p.label))
            << "\n";
        legend_y += 15;
      }
    }
    svg << "</svg>\n";
  });
  return true;
}

}  // namespace roofsim
