// Latency-bound memory: with units x outstanding x request_bytes / latency below the DRAM's
// bandwidth, a streaming op draws that bound (Little's law: bytes in flight = bandwidth x latency) and the
// latency-aware ceiling is the binding one. The bound is computed here from the device's parameters.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "sim/results/run_report.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

TEST_CASE("Little's law: a stream with few requests in flight reaches units x outstanding x request / latency") {
  test::TestDevice spec;
  spec.units = 4;
  spec.outstanding = 2;
  spec.request_bytes = 4096;
  spec.dram_latency_s = 1e-6;
  spec.l2_bytes = 1024 * 1024;  // smaller than the stream: no reuse
  test::WorkloadBuilder builder;
  const std::uint64_t elements = 4ULL << 20;  // 8 MiB per operand in bf16
  const auto index = builder.elementwise("add", elements, 2);
  // Long tiles: a tile ends when its writes are acknowledged (one latency per tile with the unit's slot held), so
  // short tiles would add a per-tile bubble on top of the request limit; 128 requests a step-operand keep it < 1%.
  builder.workload().ops[index].tile = TileShape{128 * 2048, 1, 0};
  const auto hw = spec.build();
  const auto result = run_workload(hw, builder.workload());
  const auto& op = result.ops.at(0);
  Bytes dram_bytes = 0;
  for (const auto& [level, bytes] : op.bytes) {
    if (level == "dram") dram_bytes = bytes;
  }
  // Reads hold a request slot; writes are posted (compute_unit.h), so the bound applies to the read bytes.
  const double bound = 4.0 * 2.0 * 4096.0 / 1e-6;
  REQUIRE(bound < hw.dram->peak_bandwidth_bytes_per_s() / 10);
  const double read_bytes = 2.0 * static_cast<double>(elements) * 2.0;
  const double achieved = read_bytes / op.sim_time_s;
  MESSAGE("read bandwidth " << achieved / 1e9 << " GB/s, Little's-law bound " << bound / 1e9 << " GB/s");
  CHECK(dram_bytes == 3 * elements * 2);
  CHECK(test::within(achieved, bound, 0.10));
  CHECK(achieved <= bound * (1 + 1e-9));

  const auto device = make_device_roof(hw);
  const auto report = make_run_report(builder.workload(), hw, device, result);
  MESSAGE("binding ceiling: " << to_string(report.ops.at(0).roofline.binding) << " ("
                              << report.ops.at(0).roofline.bound_by << ")");
  CHECK(report.ops.at(0).roofline.binding == Variant::latency);
}
