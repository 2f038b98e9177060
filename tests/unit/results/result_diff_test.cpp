// Two results compared op by op: ops pair by name (repeated names in order), the rest are added or removed, and the
// ratios are B over A of the figures each side's report.json holds.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/results/result_diff.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

nlohmann::ordered_json op(const std::string& name, double time_s, std::uint64_t dram_bytes,
                          const std::string& bound_by) {
  return {{"name", name},         {"kind", "gemm"},
          {"useful_flops", 1000}, {"bytes", {{"l2", 2 * dram_bytes}, {"dram", dram_bytes}}},
          {"binding", "classic"}, {"bound_by", bound_by},
          {"sim_time_s", time_s}, {"achieved_flops_per_s", 1000 / time_s}};
}

nlohmann::ordered_json report(nlohmann::ordered_json ops, double total_s) {
  return {{"command", "run"},
          {"hardware", {{"name", "H100-SXM5"}, {"file", "h.toml"}}},
          {"workload", {{"name", "w"}, {"file", "w.toml"}}},
          {"ops", std::move(ops)},
          {"total", {{"sim_time_s", total_s}, {"useful_flops", 3000}}}};
}

const OpChange& change(const ResultDiff& diff, std::size_t index) {
  REQUIRE(index < diff.ops.size());
  return diff.ops[index];
}

}  // namespace

TEST_CASE("diff: matched ops give B/A time and byte ratios and flag a changed bound") {
  const auto a = result_figures(
      report({op("qkv", 2e-6, 400, "memory:dram"), op("proj", 1e-6, 100, "compute:fp16"), op("old", 5e-6, 7, "x")},
             8e-6),
      "A");
  const auto b = result_figures(
      report({op("proj", 3e-6, 300, "compute:fp16"), op("qkv", 1e-6, 100, "compute:fp16"), op("new", 4e-6, 9, "y")},
             6e-6),
      "B");
  const auto diff = diff_results(a, b);
  REQUIRE(diff.ops.size() == 4);
  CHECK(diff.levels == std::vector<std::string>{"l2", "dram"});

  const auto& qkv = change(diff, 0);
  CHECK(qkv.name == "qkv");
  CHECK(qkv.presence == OpPresence::both);
  CHECK(*qkv.time_ratio() == doctest::Approx(0.5));
  CHECK(*qkv.bytes[1].a == 400);
  CHECK(*qkv.bytes[1].b == 100);
  CHECK(*qkv.bytes[1].ratio() == doctest::Approx(0.25));
  CHECK(*qkv.bytes[0].ratio() == doctest::Approx(0.25));
  CHECK(qkv.bound_changed());

  const auto& proj = change(diff, 1);
  CHECK(proj.name == "proj");
  CHECK(*proj.time_ratio() == doctest::Approx(3.0));
  CHECK_FALSE(proj.bound_changed());

  CHECK(change(diff, 2).name == "old");
  CHECK(change(diff, 2).presence == OpPresence::removed);
  CHECK_FALSE(change(diff, 2).time_ratio());
  CHECK_FALSE(change(diff, 2).bytes[1].b);
  CHECK(change(diff, 3).name == "new");
  CHECK(change(diff, 3).presence == OpPresence::added);
  CHECK_FALSE(change(diff, 3).bound_changed());

  CHECK(*diff.total_time_ratio() == doctest::Approx(0.75));
  CHECK(diff.count(OpPresence::both) == 2);
  CHECK(diff.count(OpPresence::added) == 1);
  CHECK(diff.count(OpPresence::removed) == 1);
  CHECK(diff.bound_changes() == 1);
  CHECK(diff.a.hardware == "H100-SXM5");
}

TEST_CASE("diff: repeated names pair in order and the surplus is added") {
  const auto a = result_figures(report({op("layer", 1e-6, 10, "m"), op("layer", 2e-6, 20, "m")}, 3e-6), "A");
  const auto b = result_figures(
      report({op("layer", 4e-6, 10, "m"), op("layer", 4e-6, 20, "m"), op("layer", 1e-6, 1, "m")}, 9e-6), "B");
  const auto diff = diff_results(a, b);
  REQUIRE(diff.ops.size() == 3);
  CHECK(*change(diff, 0).time_ratio() == doctest::Approx(4.0));
  CHECK(*change(diff, 1).time_ratio() == doctest::Approx(2.0));
  CHECK(change(diff, 2).presence == OpPresence::added);
}

TEST_CASE("diff: a roofline report (no simulated times) has no time ratios, and levels only one side has are kept") {
  auto roofline_op = op("g", 1e-6, 10, "m");
  roofline_op["sim_time_s"] = nullptr;
  auto other = op("g", 1e-6, 10, "m");
  other["bytes"]["l1"] = 5;
  const auto diff =
      diff_results(result_figures(report({roofline_op}, 0), "A"), result_figures(report({other}, 1e-6), "B"));
  CHECK_FALSE(change(diff, 0).time_ratio());
  CHECK(diff.levels == std::vector<std::string>{"l2", "dram", "l1"});
  CHECK_FALSE(change(diff, 0).bytes[2].a);
  CHECK(*change(diff, 0).bytes[2].b == 5);
}

TEST_CASE("diff: a folder without report.json, or a report without ops, is an input error naming it") {
  const auto dir = test::scratch_dir("result_diff_missing");
  CHECK_THROWS_AS((void)read_result_figures(dir), InputError);
  test::write_file(dir / "report.json", R"({"command": "run"})");
  CHECK_THROWS_WITH_AS((void)read_result_figures(dir), doctest::Contains("ops"), InputError);
  test::write_file(dir / "report.json", R"({"ops": [{"name": "a", "sim_time_s": "fast"}]})");
  CHECK_THROWS_WITH_AS((void)read_result_figures(dir), doctest::Contains("sim_time_s"), InputError);
}
