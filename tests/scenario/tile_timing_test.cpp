// Exact times of one tile through the memory path, against hand-computed closed forms: requests limited by the
// outstanding limit, a FIFO DRAM channel with a fixed latency, compute at the engine's rate, double buffering, and
// posted writes. One unit, no SRAM levels, one DRAM channel of 100 GB/s and 500 ns.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {
constexpr double kChunkTransferS = 4096 / 100e9;  // one 4 KiB request on the channel
constexpr double kLatencyS = 500e-9;
constexpr double kStepComputeS = 2.0 * 128 * 128 * 64 / 1024e9;  // a 128 x 128 x 64 k-step at 1024 FLOP/cycle, 1 GHz

RunResult run_one_tile(std::uint64_t k, std::uint64_t outstanding) {
  test::TestDevice spec;
  spec.units = 1;
  spec.occupancy = 1;
  spec.outstanding = outstanding;
  spec.smem = false;
  spec.l2 = false;
  spec.dram_channels = 1;
  spec.dram_channel_bytes_per_s = 100e9;
  spec.dram_latency_s = kLatencyS;
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 128, 128, k, TileShape{128, 128, 64});
  return run_workload(spec.build(), builder.workload());
}
}  // namespace

TEST_CASE("one k-step with one request in flight: every chunk pays the full latency in turn") {
  const auto result = run_one_tile(64, 1);
  // 8 read chunks (A and B, 16 KiB each) one after another, the step, then 8 posted write chunks of C (32 KiB).
  const double expected = 8 * (kChunkTransferS + kLatencyS) + kStepComputeS + 8 * kChunkTransferS + kLatencyS;
  CHECK(test::within(result.ops.at(0).sim_time_s, expected, 1e-9));
}

TEST_CASE("one k-step with eight requests in flight: the chunks queue on the channel and share one latency") {
  const auto result = run_one_tile(64, 8);
  const double expected = 8 * kChunkTransferS + kLatencyS + kStepComputeS + 8 * kChunkTransferS + kLatencyS;
  CHECK(test::within(result.ops.at(0).sim_time_s, expected, 1e-9));
}

TEST_CASE("two k-steps double-buffered: the second step's loads overlap the first step's compute") {
  const auto result = run_one_tile(128, 16);
  // Both steps' 16 chunks go out at once; step 1's data is back long before step 0 has computed.
  const double step0_ready = 8 * kChunkTransferS + kLatencyS;
  const double expected = step0_ready + 2 * kStepComputeS + 8 * kChunkTransferS + kLatencyS;
  CHECK(test::within(result.ops.at(0).sim_time_s, expected, 1e-9));
  const auto& op = result.ops.at(0);
  CHECK(test::within(op.busy_s, 2 * kStepComputeS, 1e-9));
  CHECK(test::within(op.busy_s + op.wait_memory_latency_s + op.wait_bandwidth_s + op.tail_s + op.wait_launch_s +
                         op.wait_dispatch_s + op.wait_dependencies_s,
                     op.span_s, 1e-9));
}
