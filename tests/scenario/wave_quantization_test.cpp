// Waves and tails emerge from the dispatcher and the tile counts: two independent GEMMs run one
// after the other on one stream, so one process measures both.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {
// A compute-bound device: memories far faster than the engines.
test::TestDevice compute_bound_device(std::uint64_t units, std::uint64_t occupancy) {
  test::TestDevice spec;
  spec.units = units;
  spec.occupancy = occupancy;
  spec.dram_channel_bytes_per_s = 10e12;
  return spec;
}

// Waves and tile quantization are those of data-parallel tiling: the ops name it, as the lowering would otherwise deal
// a partial wave's k-steps to stream-K tiles (sim/graph/gemm_decomposition.h).
Workload data_parallel(Workload workload) {
  for (auto& op : workload.ops) op.decomposition = GemmDecompositionKind::data_parallel;
  return workload;
}
}  // namespace

TEST_CASE(
    "waves, occupancy 1: units tiles vs units + 1 tiles take at least 1.8x as long, waves 1 -> 2, tail reported") {
  const auto spec = compute_bound_device(8, 1);
  const TileShape tile{128, 128, 64};
  test::WorkloadBuilder builder;
  builder.gemm("one_wave", 128, 128 * 8, 1024, tile);
  builder.gemm("two_waves", 128, 128 * 9, 1024, tile);
  const auto result = run_workload(spec.build(), data_parallel(builder.workload()));
  const auto& one = result.ops.at(0);
  const auto& two = result.ops.at(1);
  CHECK(one.tiles == 8);
  CHECK(two.tiles == 9);
  CHECK(one.waves == 1);
  CHECK(two.waves == 2);
  const double ratio = two.sim_time_s / one.sim_time_s;
  MESSAGE("units + 1 tiles / units tiles: time ratio " << ratio << ", tail " << two.tail_s << " unit-s of "
                                                       << two.span_s * 8 << " unit-s");
  CHECK(ratio >= 1.8);
  // The second wave's tile runs alone: the other 7 units idle for about one tile time each.
  CHECK(two.tail_s >= 0.8 * 7 * one.sim_time_s);
  CHECK(one.tail_s <= 0.05 * 8 * one.sim_time_s);
}

TEST_CASE("waves, occupancy k: one tile more than units x k costs about 1 + 1/k") {
  const std::uint64_t k = 4;
  const auto spec = compute_bound_device(8, k);
  const TileShape tile{128, 128, 64};
  test::WorkloadBuilder builder;
  builder.gemm("full", 128, 128 * 8 * k, 1024, tile);
  builder.gemm("one_more", 128, 128 * (8 * k + 1), 1024, tile);
  const auto result = run_workload(spec.build(), data_parallel(builder.workload()));
  const auto& full = result.ops.at(0);
  const auto& more = result.ops.at(1);
  CHECK(full.waves == 1);
  CHECK(more.waves == 2);
  const double ratio = more.sim_time_s / full.sim_time_s;
  MESSAGE("occupancy " << k << ": time ratio " << ratio << " (1 + 1/k = " << 1.0 + 1.0 / k << ")");
  CHECK(test::within(ratio, 1.0 + 1.0 / k, 0.02));
}

TEST_CASE("tile quantization: N = 257 executes 1.5x the FLOPs of N = 256 with 128-wide tiles") {
  const auto spec = compute_bound_device(4, 1);
  const TileShape tile{128, 128, 64};
  test::WorkloadBuilder builder;
  builder.gemm("n256", 256, 256, 256, tile);
  builder.gemm("n257", 256, 257, 256, tile);
  const auto result = run_workload(spec.build(), data_parallel(builder.workload()));
  const auto& even = result.ops.at(0);
  const auto& odd = result.ops.at(1);
  CHECK(even.useful_flops == 2ULL * 256 * 256 * 256);
  CHECK(odd.useful_flops == 2ULL * 256 * 257 * 256);
  CHECK(even.executed_flops == even.useful_flops);
  CHECK(2 * odd.executed_flops == 3 * even.executed_flops);
  // Edge tiles touch only in-bounds addresses: C is written exactly once.
  for (const auto& [level, bytes] : odd.bytes) {
    if (level == "dram") CHECK(bytes == 2ULL * (256 * 256 + 256 * 257 + 256 * 257));
  }
}
