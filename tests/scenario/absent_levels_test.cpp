// Any memory level may be absent: an SRAM-only device (one shared scratchpad, no DRAM) and a
// device with DRAM but no on-chip level both run, and bytes are counted at the levels that exist.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

TEST_CASE("an SRAM-only device streams from its shared scratchpad at that scratchpad's bandwidth") {
  test::TestDevice spec;
  spec.units = 8;
  spec.smem = false;
  spec.l2 = false;
  spec.dram = false;
  auto hw = spec.build();
  MemoryLevelParams sram;
  sram.name = "sram";
  sram.scope = LevelScope::device;
  sram.kind = LevelKind::scratchpad;
  sram.capacity_bytes = 256ULL << 20;
  sram.line_bytes = 128;
  sram.associativity = 1;
  sram.banks = 8;
  sram.bytes_per_cycle = 256;  // 256 GB/s at 1 GHz
  sram.clock_hz = 1e9;
  sram.tracking_bytes = 4096;
  sram.bandwidth_bytes_per_s = 256e9;
  hw.levels = {sram};
  test::WorkloadBuilder builder;
  const std::uint64_t elements = 4ULL << 20;
  builder.elementwise("add", elements, 2);
  const auto result = run_workload(hw, builder.workload());
  const auto& op = result.ops.at(0);
  REQUIRE(op.bytes.size() == 1);
  CHECK(op.bytes[0].first == "sram");
  CHECK(op.bytes[0].second == 3 * elements * 2);
  // Hashed banks share the load unevenly chunk by chunk, but a long stream keeps every bank busy.
  const double bandwidth = static_cast<double>(op.bytes[0].second) / op.sim_time_s;
  MESSAGE("SRAM-only stream: " << bandwidth / 1e9 << " GB/s of 256 GB/s");
  CHECK(bandwidth >= 0.9 * 256e9);
  CHECK(bandwidth <= 256e9 * (1 + 1e-9));
}

TEST_CASE("a device with DRAM and no SRAM level runs a GEMM with every byte from DRAM") {
  test::TestDevice spec;
  spec.units = 4;
  spec.smem = false;
  spec.l2 = false;
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 256, 256, 256, TileShape{128, 128, 64});
  const auto result = run_workload(spec.build(), builder.workload());
  const auto& op = result.ops.at(0);
  REQUIRE(op.bytes.size() == 1);
  CHECK(op.bytes[0].first == "dram");
  // No cache: each of the 2 x 2 tiles reads its A panel and B panel, and writes its C tile.
  CHECK(op.bytes[0].second == 2ULL * (2 * 256 * 256 + 2 * 256 * 256 + 256 * 256));
}
