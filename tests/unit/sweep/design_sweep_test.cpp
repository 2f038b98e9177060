// Trades at constant die area, budgets that drop exactly the points breaking them, and Pareto marks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "sim/config/hardware_params.h"
#include "sim/design/design_model.h"
#include "sim/sweep/design_sweep.h"
#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

SweepSpec spec_of(const std::string& sweep_table, const std::string& axes) {
  const std::string text = "[sweep]\nname = \"t\"\nmode = \"roofline\"\nhardware = \"" +
                           test::config_path("H100-SXM5.toml").string() +
                           "\"\nworkload = \"gemm\"\nmetrics = [\"sim_time_s\"]\n" + sweep_table + "\n" + axes;
  return parse_sweep(text, "t.toml", "/tmp");
}

double base_area_mm2() {
  return estimate_design(load_hardware(test::config_path("H100-SXM5.toml"))).area.total_mm2;
}

}  // namespace

TEST_CASE("constraints parse with their units and refuse what is not one") {
  std::string problem;
  const auto area = parse_constraint("area <= 814mm2", problem);
  REQUIRE(area);
  CHECK(area->quantity == DesignQuantity::area);
  CHECK(area->limit == 814);
  CHECK(parse_constraint("cost <= 25kUSD", problem)->limit == 25000);
  CHECK(parse_constraint("tdp >= 0.7kW", problem)->at_most == false);
  CHECK_FALSE(parse_constraint("area <= 814", problem));
  CHECK_FALSE(parse_constraint("speed <= 1W", problem));
  CHECK_FALSE(parse_constraint("tdp < 700W", problem));
}

TEST_CASE("iso-area trade: giving SMs to the L2 keeps the die area within 0.1 %") {
  const auto spec = spec_of("trade = { give = \"compute.units\", take = \"memory.l2.capacity\", at = \"area\" }",
                            "[[axis]]\nkey = \"compute.units\"\nvalues = [132, 124, 116, 100]\n");
  const double target = base_area_mm2();
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 4);
  Bytes previous = 0;
  for (const auto& point : points) {
    REQUIRE(point.design);
    CHECK(std::abs(point.design->area_mm2 / target - 1) <= 1e-3);
    CHECK(point.design->area_mm2 <= target * (1 + 1e-12));
    // The point's hardware, loaded with its overrides, has that area: the trade's value is what runs.
    const auto hw = load_hardware(test::config_path("H100-SXM5.toml"), point.overrides);
    CHECK(estimate_design(hw).area.total_mm2 == doctest::Approx(point.design->area_mm2));
    CHECK(hw.level("l2")->capacity_bytes > previous);  // fewer SMs, more L2
    previous = hw.level("l2")->capacity_bytes;
  }
  // 132 SMs: the base device, its own 50 MiB of L2 (less than one granule away).
  CHECK(load_hardware(test::config_path("H100-SXM5.toml"), points[0].overrides).level("l2")->capacity_bytes ==
        50u << 20);
}

TEST_CASE("trade for whole units: the remainder below one unit is reported as filler") {
  const auto spec = spec_of("trade = { give = \"memory.l2.capacity\", take = \"compute.units\", at = \"area\" }",
                            "[[axis]]\nkey = \"memory.l2.capacity\"\nvalues = [\"50MiB\", \"100MiB\", \"200MiB\"]\n");
  const double target = base_area_mm2();
  const auto points = expand_points(spec);
  for (const auto& point : points) {
    REQUIRE(point.design);
    const auto hw = load_hardware(test::config_path("H100-SXM5.toml"), point.overrides);
    const double unit_mm2 = estimate_design(hw).area.unit_mm2;
    CHECK(point.design->filler_mm2 >= 0);
    CHECK(point.design->filler_mm2 < unit_mm2);
    CHECK(point.design->area_mm2 + point.design->filler_mm2 == doctest::Approx(target));
  }
  CHECK(points[0].take_value == "132");
  CHECK(std::stoi(points[2].take_value) < std::stoi(points[1].take_value));
}

TEST_CASE("a constraint drops exactly the points that break it") {
  const double limit = std::floor(base_area_mm2());  // just below the 132-SM die: 132 and more break it
  const auto spec =
      spec_of("constraint = [\"area <= " + std::to_string(static_cast<int>(limit)) + "mm2\", \"tdp <= 2000W\"]",
              "[[axis]]\nkey = \"compute.units\"\nvalues = [100, 120, 131, 132, 140]\n");
  const auto points = expand_points(spec);
  for (const auto& point : points) {
    const auto hw = load_hardware(test::config_path("H100-SXM5.toml"), point.overrides);
    const bool breaks = estimate_design(hw).area.total_mm2 > limit;
    CHECK_MESSAGE(!point.dropped_by.empty() == breaks, point.values[0]);
    if (breaks) CHECK(point.dropped_by.find("area") == 0);
  }
  CHECK(points[2].dropped_by.empty());
  CHECK_FALSE(points[3].dropped_by.empty());
  // A dropped point is collected as dropped, not failed or missing, with the budget it breaks.
  const auto result = collect_point(spec, points[4], {test::scratch_dir("design_sweep_dropped")});
  CHECK(result.status == PointStatus::dropped);
  CHECK(result.error == points[4].dropped_by);
}

TEST_CASE("Pareto marks agree with a brute-force sort over random points") {
  std::mt19937 random(12345);
  std::uniform_int_distribution<int> coordinate(0, 20);  // a coarse grid makes ties and duplicates
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::vector<std::optional<double>>> objectives(30);
    for (auto& point : objectives) point = {double(coordinate(random)), double(coordinate(random))};
    objectives[trial % 30][1] = std::nullopt;  // a point without a value is never marked
    const auto marks = pareto_front(objectives);
    for (std::size_t i = 0; i < objectives.size(); ++i) {
      bool expected = objectives[i][1].has_value();
      for (std::size_t j = 0; j < objectives.size() && expected; ++j) {
        if (!objectives[j][1]) continue;
        const double xi = *objectives[i][0], yi = *objectives[i][1];
        const double xj = *objectives[j][0], yj = *objectives[j][1];
        if ((xj < xi && yj <= yi) || (xj <= xi && yj < yi)) expected = false;
      }
      CHECK(marks[i] == expected);
    }
  }
}

TEST_CASE("Pareto marks compare a point only with the points of the same workload") {
  const auto spec = spec_of("pareto = [\"sim_time_s\", \"cost\"]",
                            "[[axis]]\nkey = \"workload.params.size\"\nvalues = [1, 16]\n"
                            "[[axis]]\nkey = \"compute.units\"\nvalues = [100, 132]\n");
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 4);
  CHECK(points[0].design->cost_usd < points[1].design->cost_usd);  // fewer SMs, a smaller and cheaper die
  // size 1: the cheap die is also faster; size 16: the dear one is faster, so both are optimal. Across groups the
  // cheap size-1 point would dominate both size-16 points.
  const double times_s[] = {1e-3, 2e-3, 10e-3, 5e-3};
  std::vector<PointResult> results(4);
  for (std::size_t i = 0; i < 4; ++i) {
    results[i].status = PointStatus::ok;
    OpRow total;
    total.op = "total";
    total.numbers = {times_s[i]};
    total.cells = {std::to_string(times_s[i])};
    results[i].total = total;
  }
  CHECK(pareto_marks(spec, points, results) == std::vector<bool>{true, false, true, true});
}
