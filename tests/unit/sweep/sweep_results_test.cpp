// What a sweep collects from a point's report.json: metrics by dotted path, derived metrics, the total row, CSV
// quoting, and the progress line.
#include <doctest/doctest.h>

#include <sstream>

#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_runner.h"

using namespace roofsim;

namespace {

// Two ops as `roofsim run` reports them (DESIGN.md section 6).
nlohmann::json report() {
  return nlohmann::json::parse(R"({
    "ops": [
      {"name": "a", "useful_flops": 1000, "bytes": {"l2": 300, "dram": 100}, "binding": "dram",
       "ceilings": {"classic": 4000.0, "dram": 2000.0}, "bound_by": "dram-rows", "sim_time_s": 1.0},
      {"name": "b", "useful_flops": 3000, "bytes": {"l2": 30, "dram": 10}, "binding": "classic",
       "ceilings": {"classic": 1000.0, "dram": 1000.0}, "bound_by": "compute:fp16", "sim_time_s": 3.0}
    ],
    "total": {"sim_time_s": 5.0}})");
}

}  // namespace

TEST_CASE("op metrics: dotted paths into the op - and the derived attainable FLOP/s and roofline time") {
  const auto op = report()["ops"][0];
  CHECK(op_metric(op, "bytes.dram").get<int>() == 100);
  CHECK(op_metric(op, "bound_by").get<std::string>() == "dram-rows");
  CHECK(op_metric(op, "bytes.hbm").is_null());
  CHECK(op_metric(op, "attainable_flops_per_s").get<double>() == 2000.0);  // the binding ceiling
  CHECK(op_metric(op, "roofline_time_s").get<double>() == 0.5);            // 1000 FLOP / 2000 FLOP/s
}

TEST_CASE("the total row sums FLOPs - bytes and roofline time and divides totals for rates") {
  const std::vector<std::string> metrics = {"useful_flops", "bytes.dram",           "roofline_time_s",
                                            "sim_time_s",   "achieved_flops_per_s", "attainable_flops_per_s",
                                            "bound_by"};
  const auto row = total_row(report(), metrics);
  CHECK(row.op == "total");
  CHECK(row.cells[0] == "4000");
  CHECK(row.cells[1] == "110");
  CHECK(row.numbers[2].value() == doctest::Approx(3.5));  // 0.5 + 3
  CHECK(row.cells[3] == "5");                             // the report's total, not the sum of ops
  CHECK(row.numbers[4].value() == doctest::Approx(800));  // 4000 FLOP / 5 s
  CHECK(row.numbers[5].value() == doctest::Approx(4000 / 3.5));
  CHECK(row.cells[6].empty());
}

TEST_CASE("CSV fields with commas - quotes or line breaks are quoted") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("point folders sort in point order") {
  CHECK(point_dir_name(7, 9) == "p0007");
  CHECK(point_dir_name(7, 123456) == "p000007");
  CHECK(point_dir_name(10, 12) > point_dir_name(9, 12));
}

TEST_CASE("the progress line shows done/total and extrapolates the time left from this run's points") {
  // 2 skipped, 3 of 8 run in 30 s: 5 left at 10 s each.
  const auto line = progress_line(5, 10, 1, 3, 8, 30.0);
  CHECK(line.find("5/10 points") != std::string::npos);
  CHECK(line.find("1 failed") != std::string::npos);
  CHECK(line.find("0:50 left") != std::string::npos);
  CHECK(line.find("[###############...............]") == 0);
}

TEST_CASE("shell quoting leaves plain words and quotes the rest") {
  CHECK(shell_quote("/usr/bin/roofsim") == "/usr/bin/roofsim");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
}
