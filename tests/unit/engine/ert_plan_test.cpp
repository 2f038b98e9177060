// The ERT sweep's plan (sim/engine/ert_plan.h) for the bundled H100 file: its bands from the levels' capacities, its
// working sets in whole requests per slot, its kernel types and their top intensities, and the kernel's lowering.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/config/hardware_params.h"
#include "sim/engine/ert_plan.h"
#include "sim/engine/ert_run.h"
#include "sim/graph/lowering.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

HardwareParams h100() {
  return load_hardware(test::config_path("H100-SXM5.toml"));
}

}  // namespace

TEST_CASE("ert plan on H100: bands from the capacities, the scratchpad keeps nothing, DRAM from twice the L2") {
  const auto hw = h100();
  const auto plan = plan_ert(hw, ErtOptions{});
  REQUIRE(plan.bands.size() == 3);
  const Bytes smem_total = 132ULL * 228 * 1024, l2 = 50ULL << 20;
  CHECK(plan.bands[0].level == "smem");
  CHECK(plan.bands[0].from_bytes == 1);
  CHECK(plan.bands[0].to_bytes == smem_total);
  // smem is a scratchpad: the l2 band starts right above it, not at twice it.
  CHECK(plan.bands[1].level == "l2");
  CHECK(plan.bands[1].from_bytes == smem_total + 1);
  CHECK(plan.bands[1].to_bytes == l2);
  CHECK(plan.bands[2].level == "dram");
  CHECK(plan.bands[2].from_bytes == 2 * l2);
  const Bytes unit = 264 * 4096;  // one 4 KiB request per slot (132 SMs x 2)
  for (const auto& band : plan.bands) {
    INFO(band.level);
    CHECK(band.representative_bytes % unit == 0);
    CHECK(band.holds(band.representative_bytes));
  }
  CHECK(plan.bands[2].representative_bytes == (2 * l2 + unit - 1) / unit * unit);

  // Types: every engine's data types; the memory type is the highest peak (fp8 on the matrix engine, before int8).
  CHECK(plan.types.size() == 10);
  CHECK(plan.types[plan.memory_type].label() == "matrix fp8");
  for (const auto& type : plan.types) {
    INFO(type.label());
    // The top intensity is at least 8 x the ridge P / B_dram, and the power of two below it is not.
    const double intensity =
        static_cast<double>(type.top_flops_per_element) / (2.0 * static_cast<double>(element_bytes(type.dtype)));
    const double ridge = type.peak_flops_per_s / hw.dram->peak_bandwidth_bytes_per_s();
    CHECK(intensity >= 8 * ridge);
    CHECK(intensity / 2 < 8 * ridge);
  }

  // Points: bandwidth points at one FLOP per element over an ascending ladder that holds each representative;
  // every working set a whole number of requests per slot; warm-up exactly where the working set fits an SRAM level.
  std::vector<Bytes> ladder;
  for (const auto& point : plan.points) {
    CHECK(point.working_set_bytes % unit == 0);
    CHECK(point.warm_up == (point.working_set_bytes <= l2));
    CHECK(point.passes >= 2);
    if (point.purpose == ErtPurpose::bandwidth) {
      CHECK(point.flops_per_element == 1);
      ladder.push_back(point.working_set_bytes);
    }
  }
  CHECK(std::is_sorted(ladder.begin(), ladder.end()));
  CHECK(ladder.front() == unit);
  for (const auto& band : plan.bands) {
    CHECK(std::find(ladder.begin(), ladder.end(), band.representative_bytes) != ladder.end());
  }
  const auto quick = plan_ert(hw, ErtOptions{true, 0});
  CHECK(quick.points.size() < plan.points.size());
  CHECK(quick.chunk_accesses() < plan.chunk_accesses());
}

TEST_CASE("ert plan: a unit-scope cache pushes the next band to twice its capacity") {
  auto hw = h100();
  hw.levels[0].kind = LevelKind::cache;
  hw.levels[1].capacity_bytes = 96ULL << 20;
  const auto plan = plan_ert(hw, ErtOptions{});
  CHECK(plan.bands[1].from_bytes == 2 * 132ULL * 228 * 1024);
  CHECK(plan.bands[2].from_bytes == 2 * (96ULL << 20));
}

TEST_CASE("ert kernel lowering: each tile passes over its own slice, loading and storing each chunk in place") {
  auto hw = h100();
  ErtPlan plan;
  plan.request_bytes = 4096;
  plan.slots = 264;
  plan.types.push_back({"matrix", DataType::bf16, 0, 1});
  ErtPoint point;
  point.working_set_bytes = 264 * 4096 * 3 + 4096;  // 793 chunks over 264 tiles: slices of 3 or 4
  point.flops_per_element = 7;
  point.passes = 2;
  plan.points.push_back(point);
  const auto workload = make_ert_workload(plan, hw);
  REQUIRE(workload.ops.size() == 2);  // no warm-up asked: the short and the long run
  const auto lowering = lower_op(workload.ops[0], workload.tensors, hw);
  REQUIRE(lowering != nullptr);
  CHECK(lowering->tiles() == 264);
  const std::uint64_t elements = point.working_set_bytes / 2;
  CHECK(lowering->useful_flops() == elements * 7 * 2);
  CHECK(lowering->executed_flops() == lowering->useful_flops());
  std::uint64_t steps = 0;
  Bytes read = 0, written = 0;
  Flops flops = 0;
  TileStep step;
  for (std::uint64_t t = 0; t < lowering->tiles(); ++t) {
    const auto n = lowering->steps(t);
    CHECK((n == 6 || n == 8));
    steps += n;
    for (std::uint32_t i = 0; i < n; ++i) {
      lowering->step(t, i, step);
      REQUIRE(step.reads.size() == 1);
      REQUIRE(step.writes.size() == 1);
      CHECK(step.ranges[step.reads[0].first].address == step.ranges[step.writes[0].first].address);
      read += step.reads[0].bytes;
      written += step.writes[0].bytes;
      flops += step.executed_flops;
    }
    // The second pass reads the first pass's chunks again.
    lowering->step(t, 0, step);
    const Bytes first = step.ranges[0].address;
    lowering->step(t, n / 2, step);
    CHECK(step.ranges[0].address == first);
  }
  CHECK(steps == 793 * 2);
  CHECK(read == 2 * point.working_set_bytes);
  CHECK(written == read);
  CHECK(flops == lowering->executed_flops());
}
