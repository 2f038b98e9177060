// Little's law binds a unit's bandwidth (DESIGN.md section 4): with its outstanding-request limit and the DRAM
// latency, a streaming op on one unit moves at most outstanding x request_bytes / latency, and reaches it when the
// channels are far faster. The multi-buffered steps must keep the whole limit in flight for this to show.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"

using namespace roofsim;

TEST_CASE("a streaming op on one unit reaches outstanding x request_bytes / latency within 10%") {
  test::TestDevice spec;
  spec.units = 1;
  spec.occupancy = 2;
  spec.outstanding = 64;
  spec.smem_bytes = 4 * 1024 * 1024;
  spec.l2_bytes = 1024 * 1024;
  spec.dram_channels = 8;
  spec.dram_channel_bytes_per_s = 1e12;
  spec.dram_latency_s = 1e-6;
  test::WorkloadBuilder builder;
  const std::uint64_t elements = 16ULL << 20;
  builder.elementwise("add", elements, 2);
  const auto result = run_workload(spec.build(), builder.workload());
  const auto& op = result.ops.at(0);
  const double read_bytes = 2.0 * static_cast<double>(elements) * 2;
  const double bound = 64.0 * 4096 / 1e-6;
  const double achieved = read_bytes / op.sim_time_s;
  MESSAGE("read bandwidth " << achieved / 1e9 << " GB/s vs Little's law " << bound / 1e9 << " GB/s");
  CHECK(achieved <= bound * (1 + 1e-9));
  CHECK(achieved >= 0.9 * bound);
}
