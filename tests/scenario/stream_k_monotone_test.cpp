// The GEMM decomposition is chosen by predicted time (sim/graph/gemm_decomposition.h), so adding work to a shape family
// never nearly halves its throughput: on the A100 file, M = 2304, K = 4096, fp16, 256 x 128 tiles, N growing by 128
// (9 more output tiles per step; 108 SMs x 2 slots). The GEMMs of a family run one after another on one stream in one
// process, each with its own tensors, on the DRAM channel model (the row timing is not what these tests are about).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "tests/scenario/test_device.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

constexpr std::uint64_t kM = 2304, kK = 4096, kStepN = 128;

struct Point {
  std::uint64_t n = 0;
  Seconds time_s = 0;
  double flops_per_s = 0;
  std::string tiling;
};

std::vector<Point> run_family(std::uint64_t last_n) {
  auto hw = load_hardware(test::config_path("A100-SXM4-80GB.toml"), {{"dram.model", "simple"}});
  hw.streams = 1;
  // The tiling alone: dense fp16 GEMMs run A100 at its power limit, and its clock steps would move the times.
  hw.power.cap_w = 0;
  test::WorkloadBuilder builder;
  for (std::uint64_t n = kStepN; n <= last_n; n += kStepN) {
    builder.gemm("n" + std::to_string(n), kM, n, kK, TileShape{256, 128, 32});
  }
  auto& workload = builder.workload();
  for (auto& op : workload.ops) op.dtype = DataType::fp16;
  for (auto& tensor : workload.tensors) tensor.dtype = DataType::fp16;
  const auto result = run_workload(hw, workload);
  std::vector<Point> points;
  for (std::size_t i = 0; i < result.ops.size(); ++i) {
    const auto& op = result.ops[i];
    points.push_back({kStepN * (i + 1), op.sim_time_s, op.achieved_flops_per_s, op.tiling});
  }
  return points;
}

}  // namespace

TEST_CASE("stream-K choice, A100 2304 x N x 4096: FLOP/s never drop by more than 10 % as N grows by 128 to 1536") {
  const auto points = run_family(1536);
  REQUIRE(points.size() == 12);
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& before = points[i - 1];
    const auto& after = points[i];
    MESSAGE("N " << after.n << ": " << after.time_s * 1e6 << " us, " << after.flops_per_s / 1e12 << " TFLOP/s, "
                 << after.tiling);
    CHECK(after.flops_per_s >= 0.9 * before.flops_per_s);
  }
}

TEST_CASE("stream-K choice, A100 2304 x N x 4096: the time never falls by more than 2 % as N grows by 128 to 6528") {
  const auto points = run_family(6528);
  REQUIRE(points.size() == 51);
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& before = points[i - 1];
    const auto& after = points[i];
    MESSAGE("N " << after.n << ": " << after.time_s * 1e6 << " us, " << after.tiling);
    CHECK(after.time_s >= 0.98 * before.time_s);
  }
}
