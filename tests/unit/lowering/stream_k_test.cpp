// Stream-K for GEMMs with fewer output tiles than units (decode): the k-steps are dealt evenly over the units, the
// partial sums go through a workspace and are counted, the weights stream at the DRAM line, and GEMMs with enough
// output tiles keep their tiling.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/engine/engine.h"
#include "sim/graph/lowering.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

struct Walk {
  Flops executed = 0, useful = 0;
  Bytes a_read = 0, b_read = 0, c_written = 0, workspace_read = 0, workspace_written = 0, elsewhere = 0;
  std::uint64_t steps = 0, min_steps = ~0ULL, max_steps = 0;
};

// Sums every step's bytes by the tensor (or the workspace past the tensors) they fall in.
Walk walk(const OpLowering& lowering, const std::vector<Tensor>& tensors) {
  Walk w;
  Bytes end = 0;
  for (const auto& t : tensors) end = std::max(end, t.address + t.bytes);
  TileStep step;
  for (std::uint64_t tile = 0; tile < lowering.tiles(); ++tile) {
    const std::uint64_t steps = lowering.steps(tile);
    w.steps += steps;
    w.min_steps = std::min(w.min_steps, steps);
    w.max_steps = std::max(w.max_steps, steps);
    for (std::uint32_t s = 0; s < steps; ++s) {
      lowering.step(tile, s, step);
      w.executed += step.executed_flops;
      w.useful += step.useful_flops;
      for (const bool write : {false, true}) {
        for (const auto& chunk : write ? step.writes : step.reads) {
          const auto view = step.view(chunk);
          for (std::uint32_t r = 0; r < view.count; ++r) {
            const auto& range = view.ranges[r];
            const auto inside = [&](const Tensor& t) {
              return range.address >= t.address && range.address + range.bytes <= t.address + t.bytes;
            };
            if (!write && inside(tensors[0])) {
              w.a_read += range.bytes;
            } else if (!write && inside(tensors[1])) {
              w.b_read += range.bytes;
            } else if (write && inside(tensors[2])) {
              w.c_written += range.bytes;
            } else if (range.address >= end) {
              (write ? w.workspace_written : w.workspace_read) += range.bytes;
            } else {
              w.elsewhere += range.bytes;
            }
          }
        }
      }
    }
  }
  return w;
}

HardwareParams h100() {
  auto hw = load_hardware(test::config_path("H100-SXM5.toml"));
  // The channel model streams at the pin rate; the detailed model's row timing is not what this test is about.
  if (hw.dram) hw.dram->model = DramModel::simple;
  return hw;
}

}  // namespace

TEST_CASE("stream-K: 2 output tiles on 8 units run as 8 tiles of 16 k-steps, with 3 partial tiles per output tile") {
  test::TestDevice spec;
  spec.units = 8;
  const auto hw = spec.build();
  test::WorkloadBuilder builder;
  const std::uint64_t m = 16, n = 256, k = 4096;
  builder.gemm("g", m, n, k, TileShape{16, 128, 64});
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  // 2 output tiles x 64 k-steps = 128 k-steps over 8 units: 8 tiles of 16, 4 per output tile.
  CHECK(lowering->tiles() == 8);
  CHECK(lowering->description().find("stream-k 8") != std::string::npos);
  // The first 3 of each output tile's 4 tiles leave a 16 x 128 fp32 partial; the 4th reads the 3 and writes C.
  const Bytes partials = 2 * 3 * 16 * 128 * 4;
  CHECK(lowering->partial_sum_bytes() == partials);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.min_steps == 16);
  CHECK(totals.max_steps == 16);
  CHECK(totals.elsewhere == 0);
  CHECK(totals.useful == 2 * m * n * k);
  CHECK(totals.executed == lowering->executed_flops());
  // Every operand byte once: A once per output tile column, B and C once; the partials written and read once.
  CHECK(totals.a_read == 2 * m * k * 2);
  CHECK(totals.b_read == k * n * 2);
  CHECK(totals.c_written == m * n * 2);
  CHECK(totals.workspace_written == partials);
  CHECK(totals.workspace_read == partials);
}

TEST_CASE("stream-K: uneven shares differ by at most one k-step and still read every operand byte once") {
  test::TestDevice spec;
  spec.units = 13;
  spec.occupancy = 2;
  const auto hw = spec.build();
  test::WorkloadBuilder builder;
  const std::uint64_t m = 40, n = 300, k = 3000;  // edges in m, n and k
  builder.gemm("g", m, n, k, TileShape{32, 128, 64});
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  // 2 x 3 output tiles, fewer than half of 13 units; 6 x 47 = 282 k-steps over 13 x 2 tiles.
  CHECK(lowering->tiles() == 26);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.steps == 6 * 47);
  CHECK(totals.max_steps - totals.min_steps <= 1);
  CHECK(totals.elsewhere == 0);
  CHECK(totals.useful == 2 * m * n * k);
  CHECK(totals.executed == lowering->executed_flops());
  CHECK(totals.a_read == 3 * m * k * 2);
  CHECK(totals.b_read == 2 * k * n * 2);
  CHECK(totals.c_written == m * n * 2);
  CHECK(totals.workspace_written == lowering->partial_sum_bytes());
  CHECK(totals.workspace_read == lowering->partial_sum_bytes());
  CHECK(lowering->partial_sum_bytes() > 0);
}

TEST_CASE("stream-K leaves a GEMM with at least one output tile per unit as it was: H100 8192^3 and 4096^3") {
  const auto hw = h100();
  for (const std::uint64_t size : {8192, 4096}) {
    test::WorkloadBuilder builder;
    builder.gemm("g", size, size, size);
    auto& w = builder.workload();
    const auto lowering = lower_op(w.ops[0], w.tensors, hw);
    // The device's 128 x 256 x 64 tile, one tile per output tile, all k-steps in it, no partial sums.
    CHECK(lowering->description() == "gemm tile 128x256x64");
    CHECK(lowering->tiles() == (size / 128) * (size / 256));
    CHECK(lowering->steps(0) == size / 64);
    CHECK(lowering->partial_sum_bytes() == 0);
  }
}

TEST_CASE("a batch-1 decode GEMM (m 1, n = k = 12288, bf16) on H100 streams its weights at the DRAM line") {
  const auto hw = h100();
  test::WorkloadBuilder builder;
  const std::uint64_t n = 12288, k = 12288;
  builder.gemm("decode", 1, n, k);
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  // 48 output tiles of 16 x 256 (m cut to the problem) x 192 k-steps, dealt to 132 units x 2 slots.
  CHECK(lowering->tiles() == hw.compute.units * hw.compute.occupancy);
  const Bytes partials = lowering->partial_sum_bytes();
  CHECK(partials > 0);
  const auto result = run_workload(hw, w);
  const auto& op = result.ops.at(0);
  const Bytes weights = k * n * 2;
  const double line_s = static_cast<double>(weights) / hw.dram->peak_bandwidth_bytes_per_s();
  Bytes dram = 0;
  for (const auto& [level, bytes] : op.bytes) {
    if (level == "dram") dram = bytes;
  }
  MESSAGE("decode GEMM: " << op.sim_time_s * 1e6 << " us vs the DRAM line " << line_s * 1e6 << " us (launch "
                          << hw.launch_latency_s * 1e6 << " us); DRAM " << dram << " B, weights " << weights
                          << " B, partial sums " << partials << " B");
  CHECK(test::within(op.sim_time_s, line_s, 0.15));
  // DRAM moves the weights, A, C and the partial sums written through (their reads hit the L2 or go to DRAM too).
  const Bytes a_and_c = 2 * (k + n);
  CHECK(dram >= weights + a_and_c + partials);
  CHECK(dram <= weights + a_and_c + 2 * partials);
}
