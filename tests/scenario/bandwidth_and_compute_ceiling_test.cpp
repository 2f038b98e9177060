// A streaming op on an ideal DRAM reaches its bandwidth line; a large GEMM on memories that do not bind reaches
// its compute line. The ceilings are computed here from the device's parameters and the measured
// bytes, never from the simulator's outputs.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"

using namespace roofsim;

TEST_CASE("a streaming element-wise op on an ideal DRAM reaches at least 90% of its bandwidth ceiling") {
  test::TestDevice spec;
  spec.units = 16;
  spec.dram_latency_s = 0;  // ideal: no latency, no request limit
  spec.outstanding = 1u << 20;
  spec.l2_bytes = 1024 * 1024;  // smaller than the stream: no reuse
  test::WorkloadBuilder builder;
  const std::uint64_t elements = 8ULL << 20;  // 16 MiB per operand in bf16
  builder.elementwise("add", elements, 2);
  const auto hw = spec.build();
  const auto result = run_workload(hw, builder.workload());
  const auto& op = result.ops.at(0);
  Bytes dram_bytes = 0;
  for (const auto& [level, bytes] : op.bytes) {
    if (level == "dram") dram_bytes = bytes;
  }
  CHECK(dram_bytes == 3 * elements * 2);
  const double bandwidth = hw.dram->peak_bandwidth_bytes_per_s();
  const double oi = static_cast<double>(op.useful_flops) / static_cast<double>(dram_bytes);
  const double ceiling = std::min(hw.compute.peak_flops_per_s(DataType::bf16), oi * bandwidth);
  const double efficiency = op.achieved_flops_per_s / ceiling;
  MESSAGE("streaming efficiency vs the DRAM line: " << efficiency << ", events " << result.events << ", wall "
                                                    << result.wall_s << " s");
  CHECK(efficiency >= 0.90);
  CHECK(efficiency <= 1.0 + 1e-9);
}

TEST_CASE("a large GEMM on memories that do not bind reaches at least 90% of its compute ceiling") {
  test::TestDevice spec;
  spec.units = 8;
  spec.dram_channel_bytes_per_s = 10e12;  // far above what the GEMM needs
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 2048, 2048, 2048, TileShape{128, 128, 64});
  const auto hw = spec.build();
  const auto result = run_workload(hw, builder.workload());
  const auto& op = result.ops.at(0);
  const double peak = static_cast<double>(spec.units) * spec.matrix_flops_per_cycle * spec.clock_hz;
  const double efficiency = op.achieved_flops_per_s / peak;
  MESSAGE("GEMM efficiency vs the compute line: " << efficiency << ", events " << result.events << ", events/s "
                                                  << static_cast<double>(result.events) / result.wall_s);
  CHECK(op.waves == (16 * 16 + 7) / 8);
  CHECK(efficiency >= 0.90);
  CHECK(efficiency <= 1.0 + 1e-9);
}
