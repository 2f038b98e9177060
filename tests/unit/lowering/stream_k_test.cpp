// Stream-K for GEMMs with fewer output tiles than units: the k-steps are dealt evenly over the units, the partial sums
// go through a workspace and are counted, a decode GEMM's weights stream at the DRAM line, and GEMMs with enough
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
  // 2 x 3 output tiles on 13 units; 6 x 47 = 282 k-steps over 13 tiles, one per unit (13 x 2 would give each unit
  // the same 22 k-steps with twice the partial sums).
  CHECK(lowering->tiles() == 13);
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
  // 48 output tiles of 16 x 256 (m cut to the problem) x 192 k-steps. Their 48 units keep 48 x 128 KiB in flight,
  // which streams at the DRAM line already: the op runs data-parallel, without partial sums to add to the stream.
  CHECK(lowering->tiles() == 48);
  const Bytes partials = lowering->partial_sum_bytes();
  CHECK(partials == 0);
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

TEST_CASE(
    "hybrid: 9 output tiles on 4 units run as 4 stream-K tiles over the last full and the partial wave's 5, then 4") {
  test::TestDevice spec;  // 4 units, one slot each, memories far faster than the engines
  const auto hw = spec.build();
  test::WorkloadBuilder builder;
  const std::uint64_t m = 128, n = 128 * 9, k = 1024;
  builder.gemm("g", m, n, k, TileShape{128, 128, 64});
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  // Data-parallel would run 3 waves of 16 k-steps; the hybrid runs 5 x 16 = 80 k-steps as 4 tiles of 20, then 4 whole
  // output tiles: 36 k-steps a unit.
  CHECK(lowering->description() == "gemm tile 128x128x64 stream-k 4 + data-parallel 4");
  REQUIRE(lowering->tiles() == 8);
  for (std::uint64_t tile = 0; tile < 4; ++tile) CHECK(lowering->steps(tile) == 20);
  for (std::uint64_t tile = 4; tile < 8; ++tile) CHECK(lowering->steps(tile) == 16);
  // Tiles 0..2 end inside output tiles 1, 2 and 3 and leave a 128 x 128 fp32 partial each.
  CHECK(lowering->partial_sum_bytes() == 3 * 128 * 128 * 4);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.steps == 9 * 16);
  CHECK(totals.elsewhere == 0);
  CHECK(totals.useful == 2 * m * n * k);
  CHECK(totals.a_read == 9 * m * k * 2);
  CHECK(totals.b_read == k * n * 2);
  CHECK(totals.c_written == m * n * 2);
  CHECK(totals.workspace_written == lowering->partial_sum_bytes());
  CHECK(totals.workspace_read == lowering->partial_sum_bytes());
}

TEST_CASE(
    "stream-K: a tile runs its segments last first, leaving its partial sums before its fix-up reads its peers'") {
  test::TestDevice spec;
  const auto hw = spec.build();
  test::WorkloadBuilder builder;
  builder.gemm("g", 128, 128 * 9, 1024, TileShape{128, 128, 64});
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  REQUIRE(lowering->description() == "gemm tile 128x128x64 stream-k 4 + data-parallel 4");
  Bytes end = 0;
  for (const auto& t : w.tensors) end = std::max(end, t.address + t.bytes);
  // Tile 1 runs k-steps [20, 40): 12 that end output tile 1 and 8 that begin output tile 2. It runs output tile 2's
  // 8 first and leaves their partial sums, then output tile 1's 12, whose last reads tile 0's partial and writes C.
  const std::uint64_t n = 128 * 9;
  const Bytes b_address = w.tensors[1].address;
  TileStep step;
  std::uint32_t partial_written_at = 0, partial_read_at = 0;
  for (std::uint32_t s = 0; s < 20; ++s) {
    lowering->step(1, s, step);
    // The B block of k-step k of output tile (tile column) o starts at (k 64 n + 64 x 128 o) x 2 bytes.
    const std::uint64_t global = s < 8 ? 32 + s : 20 + (s - 8);
    const std::uint64_t output_tile = global / 16, k_step = global % 16;
    Bytes b_first = 0;
    for (const auto& chunk : step.reads) {
      const auto address = step.view(chunk).ranges[0].address;
      if (address >= b_address && address < b_address + w.tensors[1].bytes) {
        b_first = address;
        break;
      }
    }
    CHECK(b_first == b_address + (k_step * 64 * n + 64 * 128 * output_tile) * 2);
    for (const auto& chunk : step.writes) {
      if (step.view(chunk).ranges[0].address >= end) partial_written_at = s;
    }
    for (const auto& chunk : step.reads) {
      if (step.view(chunk).ranges[0].address >= end) partial_read_at = s;
    }
  }
  CHECK(partial_written_at == 7);
  CHECK(partial_read_at == 19);
}
