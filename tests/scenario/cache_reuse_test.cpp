// Reuse emerges from real addresses, tile order and the L2's capacity (issue 4, Tests). One unit, occupancy 1,
// row-major tile order: each row of tiles reads its A panel once while all of B streams past.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {
constexpr std::uint64_t kM = 512, kN = 1024, kK = 1024, kTm = 128;
constexpr double kE = 2;  // bf16

Bytes dram_bytes_of_gemm(Bytes l2_bytes) {
  test::TestDevice spec;
  spec.units = 1;
  spec.occupancy = 1;
  spec.l2_bytes = l2_bytes;
  test::WorkloadBuilder builder;
  builder.gemm("gemm", kM, kN, kK, TileShape{kTm, 128, 64});
  const auto result = run_workload(spec.build(), builder.workload());
  for (const auto& [level, bytes] : result.ops.at(0).bytes) {
    if (level == "dram") return bytes;
  }
  return 0;
}
}  // namespace

TEST_CASE("reuse: an L2 smaller than K x N but holding an A panel reads B once per row of tiles") {
  // 1.5 MiB: less than K x N (2 MiB), more than an A panel plus a B panel (512 KiB).
  const Bytes l2 = 3 * 512 * 1024;
  REQUIRE(l2 < kK * kN * 2);
  const double expected = kE * (kM * kK + (kM / kTm) * kK * kN + kM * kN);
  const auto measured = static_cast<double>(dram_bytes_of_gemm(l2));
  MESSAGE("DRAM bytes " << measured << " vs e(MK + (M/tm)KN + MN) = " << expected);
  CHECK(test::within(measured, expected, 0.05));
}

TEST_CASE("reuse: an L2 holding B reads every operand about once") {
  const Bytes l2 = 8 * 1024 * 1024;
  const double expected = kE * (kM * kK + kK * kN + kM * kN);
  const auto measured = static_cast<double>(dram_bytes_of_gemm(l2));
  MESSAGE("DRAM bytes " << measured << " vs e(MK + KN + MN) = " << expected);
  CHECK(test::within(measured, expected, 0.05));
}
