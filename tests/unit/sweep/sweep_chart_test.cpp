// sweep.svg: a panel per axis, a line per combination of the other axes' values, log axes for geometric values;
// checked by parsing the SVG.
#include <doctest/doctest.h>

#include <regex>
#include <sstream>

#include "sim/sweep/sweep_chart.h"
#include "tests/support/chart_check.h"

using namespace roofsim;

namespace {

SweepSpec two_by_three() {
  SweepSpec spec;
  spec.name = "chart";
  spec.metrics = {"sim_time_s"};
  spec.chart_metric = "sim_time_s";
  spec.axes = {SweepAxis{"a", "cap", {"100W", "200W"}, AxisScale::linear},
               SweepAxis{"b", "batch", {"1", "4", "16"}, AxisScale::log}};
  return spec;
}

// sim_time_s of point p = p + 1 in the point's totals; point 4 failed.
std::vector<PointResult> results_for(const std::vector<SweepPoint>& points) {
  std::vector<PointResult> results;
  for (const auto& point : points) {
    PointResult result;
    result.index = point.index;
    result.status = point.index == 4 ? PointStatus::failed : PointStatus::ok;
    if (result.status == PointStatus::ok) {
      const double value = static_cast<double>(point.index + 1);
      result.total = OpRow{"total", {std::to_string(value)}, {value}};
    }
    results.push_back(result);
  }
  return results;
}

std::size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

}  // namespace

TEST_CASE("a 2x3 grid gives a panel per axis with a line per value of the other axis") {
  const auto spec = two_by_three();
  const auto points = expand_points(spec);
  const auto panels = sweep_panels(spec, points, results_for(points));
  REQUIRE(panels.size() == 2);
  // Panel of the cap axis: one line per batch value, each with the two caps' values.
  REQUIRE(panels[0].series.size() == 3);
  CHECK(panels[0].series[1].label == "batch = 4");
  CHECK(panels[0].series[1].y[0].value() == 2);       // point 1: cap 100W, batch 4
  CHECK_FALSE(panels[0].series[1].y[1].has_value());  // point 4 failed
  CHECK(panels[0].x == std::vector<double>{100, 200});
  // Panel of the batch axis: one line per cap, three values each.
  REQUIRE(panels[1].series.size() == 2);
  CHECK(panels[1].series[1].y[2].value() == 6);  // point 5: cap 200W, batch 16
  CHECK(panels[1].x_scale == AxisScale::log);
}

TEST_CASE("the SVG has a plot area per panel and a point per ok value and labels the x ticks with the values") {
  const auto spec = two_by_three();
  const auto points = expand_points(spec);
  std::ostringstream svg;
  write_sweep_svg(spec, sweep_panels(spec, points, results_for(points)), svg);
  const auto text = svg.str();
  CHECK(count(text, "class=\"plot-area\"") == 2);
  // 5 ok points, each drawn once per panel.
  CHECK(count(text, "class=\"point\"") == 10);
  CHECK(count(text, "class=\"tick-x\"[^>]*>16<") == 1);
  CHECK(count(text, "class=\"tick-x\"[^>]*>200W<") == 1);
  CHECK(count(text, "batch \\(log\\)") == 1);
}

TEST_CASE("nice ticks are 1 2 or 5 times a power of ten and cover the range") {
  CHECK(nice_ticks(0, 10, 5) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(nice_ticks(256, 24576, 8) == std::vector<double>{5000, 10000, 15000, 20000});
  const auto ticks = nice_ticks(0.13, 0.91, 4);
  CHECK(ticks.front() == doctest::Approx(0.2));
  CHECK(ticks.back() == doctest::Approx(0.8));
}

TEST_CASE("the y axis carries the metric's unit - in its title and on its ticks") {
  CHECK(metric_unit("achieved_flops_per_s") == "FLOP/s");
  CHECK(metric_unit("ceilings.power") == "FLOP/s");
  CHECK(metric_unit("sim_time_s") == "s");
  CHECK(metric_unit("roofline_time_s") == "s");
  CHECK(metric_unit("useful_flops") == "FLOP");
  CHECK(metric_unit("bytes.dram") == "B");
  CHECK(metric_unit("oi.l2") == "FLOP/B");
  CHECK(metric_unit("bound_by").empty());
  CHECK(metric_title("achieved_flops_per_s") == "Achieved performance");
  CHECK(metric_title("bytes.dram") == "Bytes at dram");

  const auto spec = two_by_three();
  const auto points = expand_points(spec);
  std::ostringstream svg;
  write_sweep_svg(spec, sweep_panels(spec, points, results_for(points)), svg);
  const auto text = svg.str();
  // Values 1..6 s on a linear axis from 0: ticks at 0, 2, 4 and 6 s; the title names the unit once per panel.
  CHECK(count(text, ">Simulated time \\(s\\)<") == 2);
  CHECK(count(text, "class=\"tick-y\"[^>]*>0 s<") == 2);
  CHECK(count(text, "class=\"tick-y\"[^>]*>6 s<") == 2);
}

TEST_CASE("wave boundaries: where ceil(tiles / units) steps, interpolated between the axis values around it") {
  // The bundled sawtooth: 8 tiles per 256 of N over 132 units. N = 4096 gives 128 tiles (1 per unit), 4352 gives
  // 136 (2 on the busiest): the count passes 132 at N = 4096 + (132 - 128) / 8 x 256 = 4224.
  const auto one = wave_boundaries({4096, 4352}, {128, 136}, 132);
  REQUIRE(one.size() == 1);
  CHECK(one[0].x == doctest::Approx(4224));
  CHECK(one[0].tiles_per_unit == 2);
  // A jump over two boundaries (100 -> 300 tiles past 132 and 264) gives both; an unknown value is skipped, equal
  // counts give none, and no units no lines.
  const auto two = wave_boundaries({1, 2, 3}, {100, std::nullopt, 300}, 132);
  REQUIRE(two.size() == 2);
  CHECK(two[0].x == doctest::Approx(1 + (132.0 - 100) / 200 * 2));
  CHECK(two[1].x == doctest::Approx(1 + (264.0 - 100) / 200 * 2));
  CHECK(two[1].tiles_per_unit == 3);
  CHECK(wave_boundaries({1, 2}, {132, 132}, 132).empty());
  CHECK(wave_boundaries({1, 2}, {100, 300}, 0).empty());
}

TEST_CASE("a sweep whose op's tile count steps draws a dotted wave boundary with its label, and the labels pass") {
  SweepSpec spec;
  spec.name = "waves";
  spec.metrics = {"achieved_flops_per_s"};
  spec.chart_metric = "achieved_flops_per_s";
  spec.axes = {SweepAxis{"workload.params.n", "N", {"3840", "4096", "4352", "4608"}, AxisScale::linear}};
  const auto points = expand_points(spec);
  std::vector<PointResult> results;
  for (const auto& point : points) {
    PointResult result;
    result.index = point.index;
    result.status = PointStatus::ok;
    const auto tiles = 8 * (std::stoull(point.values[0]) / 256);
    result.report = {{"ops", {{{"name", "gemm"}, {"tiles", tiles}}}}};
    const double value = 1e14 * static_cast<double>(point.index + 1);
    result.total = OpRow{"total", {std::to_string(value)}, {value}};
    results.push_back(result);
  }
  const auto panels = sweep_panels(spec, points, results, 132);
  REQUIRE(panels.size() == 1);
  REQUIRE(panels[0].wave_boundaries.size() == 1);
  CHECK(panels[0].wave_boundaries[0].x == doctest::Approx(4224));
  std::ostringstream svg;
  write_sweep_svg(spec, panels, svg);
  CHECK(count(svg.str(), "class=\"wave-boundary\"") == 1);
  CHECK(count(svg.str(), ">2/unit<") == 1);
  CHECK(svg.str().find("tiles per unit step (132 units)") != std::string::npos);
  CHECK(test::chart_label_problems(svg.str()).empty());
  // Without the device's units (or in roofline mode, without tiles) there are none.
  CHECK(sweep_panels(spec, points, results)[0].wave_boundaries.empty());
}
