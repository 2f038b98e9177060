// Reuse emerges from real addresses, tile order and the L2's capacity. One unit, occupancy 1. Tiles
// are rasterized along n when the output has at least as many tile rows as tile columns: each row of tiles reads its
// A panel once while all of B streams past; along m otherwise: each column of tiles reads its B panel once while all
// of A streams past.
#include <doctest/doctest.h>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {
constexpr std::uint64_t kK = 1024, kTm = 128, kTn = 128;
constexpr double kE = 2;  // bf16

Bytes dram_bytes_of_gemm(std::uint64_t m, std::uint64_t n, Bytes l2_bytes) {
  test::TestDevice spec;
  spec.units = 1;
  spec.occupancy = 1;
  spec.l2_bytes = l2_bytes;
  test::WorkloadBuilder builder;
  builder.gemm("gemm", m, n, kK, TileShape{kTm, kTn, 64});
  const auto result = run_workload(spec.build(), builder.workload());
  for (const auto& [level, bytes] : result.ops.at(0).bytes) {
    if (level == "dram") return bytes;
  }
  return 0;
}
}  // namespace

TEST_CASE("reuse: an L2 smaller than K x N but holding an A panel reads B once per row of tiles") {
  // 8 x 4 tiles, rasterized along n. 768 KiB: less than K x N (1 MiB), more than an A panel plus a B panel (512 KiB).
  const std::uint64_t m = 1024, n = 512;
  const Bytes l2 = 3 * 256 * 1024;
  REQUIRE(l2 < kK * n * 2);
  const double expected = kE * (m * kK + (m / kTm) * kK * n + m * n);
  const auto measured = static_cast<double>(dram_bytes_of_gemm(m, n, l2));
  MESSAGE("DRAM bytes " << measured << " vs e(MK + (M/tm)KN + MN) = " << expected);
  CHECK(test::within(measured, expected, 0.05));
}

TEST_CASE("reuse: with more tile columns than rows, the tiles go along m and read A once per column of tiles") {
  // 4 x 8 tiles, rasterized along m. 768 KiB: less than M x K (1 MiB), more than an A panel plus a B panel.
  const std::uint64_t m = 512, n = 1024;
  const Bytes l2 = 3 * 256 * 1024;
  REQUIRE(l2 < m * kK * 2);
  const double expected = kE * ((n / kTn) * m * kK + kK * n + m * n);
  const auto measured = static_cast<double>(dram_bytes_of_gemm(m, n, l2));
  MESSAGE("DRAM bytes " << measured << " vs e((N/tn)MK + KN + MN) = " << expected);
  CHECK(test::within(measured, expected, 0.05));
}

TEST_CASE("reuse: an L2 holding B reads every operand about once") {
  const std::uint64_t m = 512, n = 1024;
  const Bytes l2 = 8 * 1024 * 1024;
  const double expected = kE * (m * kK + kK * n + m * n);
  const auto measured = static_cast<double>(dram_bytes_of_gemm(m, n, l2));
  MESSAGE("DRAM bytes " << measured << " vs e(MK + KN + MN) = " << expected);
  CHECK(test::within(measured, expected, 0.05));
}
