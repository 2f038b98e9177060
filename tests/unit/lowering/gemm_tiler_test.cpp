#include <doctest/doctest.h>

#include <algorithm>

#include "sim/graph/lowering.h"
#include "tests/scenario/test_device.h"

using namespace roofsim;

namespace {
struct Totals {
  Flops executed = 0, useful = 0;
  Bytes read = 0, written = 0;
  std::uint64_t chunks = 0;
  Bytes largest_chunk = 0;
  bool in_bounds = true;
};

bool inside(const AddressRange& r, const std::vector<Tensor>& tensors) {
  return std::any_of(tensors.begin(), tensors.end(), [&](const Tensor& t) {
    return r.address >= t.address && r.address + r.bytes <= t.address + t.bytes;
  });
}

Totals walk(const OpLowering& lowering, const std::vector<Tensor>& tensors) {
  Totals totals;
  TileStep step;
  for (std::uint64_t tile = 0; tile < lowering.tiles(); ++tile) {
    for (std::uint32_t s = 0; s < lowering.steps(tile); ++s) {
      lowering.step(tile, s, step);
      totals.executed += step.executed_flops;
      totals.useful += step.useful_flops;
      for (const auto* list : {&step.reads, &step.writes}) {
        for (const auto& chunk : *list) {
          ++totals.chunks;
          totals.largest_chunk = std::max(totals.largest_chunk, chunk.bytes);
          const auto view = step.view(chunk);
          for (std::uint32_t i = 0; i < view.count; ++i) {
            totals.in_bounds = totals.in_bounds && inside(view.ranges[i], tensors);
          }
          (list == &step.reads ? totals.read : totals.written) += chunk.bytes;
        }
      }
    }
  }
  return totals;
}
}  // namespace

TEST_CASE("GEMM: tiles, k-steps and the closed-form FLOPs and bytes of a tiled GEMM") {
  const auto hw = test::TestDevice{}.build();
  test::WorkloadBuilder builder;
  const std::uint64_t m = 300, n = 257, k = 200;
  builder.gemm("g", m, n, k, TileShape{128, 128, 64});
  auto& w = builder.workload();
  w.ops[0].decomposition = GemmDecompositionKind::data_parallel;  // one tile per output tile
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  CHECK(lowering->tiles() == 3 * 3);
  CHECK(lowering->steps(0) == 4);
  CHECK(lowering->executed_flops() == 9ULL * 4 * 2 * 128 * 128 * 64);
  CHECK(lowering->useful_flops() == 2 * m * n * k);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.executed == lowering->executed_flops());
  CHECK(totals.useful == 2 * m * n * k);
  CHECK(totals.executed >= totals.useful);
  // Edge tiles touch only in-bounds addresses: each tile column reads all of A, each tile row all of B, C once.
  CHECK(totals.in_bounds);
  CHECK(totals.read == 2 * (3 * m * k + 3 * k * n));
  CHECK(totals.written == 2 * m * n);
  CHECK(totals.largest_chunk <= hw.compute.request_bytes);
}

TEST_CASE("GEMM tile choice: the op's tile, else the device default, else the largest that fits double-buffered") {
  auto spec = test::TestDevice{};
  spec.smem_bytes = 96 * 1024;
  auto hw = spec.build();
  test::WorkloadBuilder builder;
  builder.gemm("g", 4096, 4096, 4096);
  auto op = builder.workload().ops[0];
  const auto chosen = choose_gemm_tile(op, hw);
  // 2 x (tm tk + tk tn) x 2 B <= 96 KiB: the largest output tile, 256 x 256, fits with k = 32 (64 KiB) but not
  // with k = 64 (128 KiB).
  CHECK(chosen.m == 256);
  CHECK(chosen.n == 256);
  CHECK(chosen.k == 32);
  CHECK(2 * (chosen.m * chosen.k + chosen.k * chosen.n) * 2 <= spec.smem_bytes);
  hw.compute.default_tile = TileShape{64, 64, 32};
  CHECK(choose_gemm_tile(op, hw).m == 64);
  op.tile = TileShape{32, 32, 32};
  CHECK(choose_gemm_tile(op, hw).m == 32);
  op.tile = TileShape{1024, 1024, 64};
  CHECK_THROWS_AS((void)choose_gemm_tile(op, hw), InputError);
}

TEST_CASE("batched GEMM with shared weights reads B at the same addresses for every batch") {
  const auto hw = test::TestDevice{}.build();
  test::WorkloadBuilder builder;
  builder.gemm("g", 128, 128, 128, TileShape{128, 128, 64}, 3);
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  CHECK(lowering->tiles() == 3);
  TileStep first, last;
  lowering->step(0, 0, first);
  lowering->step(2, 0, last);
  CHECK(first.view(first.reads.back()).ranges[0].address == last.view(last.reads.back()).ranges[0].address);
  CHECK(first.view(first.reads.front()).ranges[0].address != last.view(last.reads.front()).ranges[0].address);
  CHECK(walk(*lowering, w.tensors).in_bounds);
}

TEST_CASE("conv2d as implicit GEMM: m = N P Q, n = K, k = C R S, output written once, reads in bounds") {
  const auto hw = test::TestDevice{}.build();
  test::WorkloadBuilder builder;
  Op op;
  op.name = "conv";
  op.kind = OpKind::conv2d;
  op.dtype = DataType::bf16;
  op.shape.batch = 2;
  op.shape.channels = 16;
  op.shape.height = 14;
  op.shape.width = 14;
  op.shape.filters = 32;
  op.shape.kernel_h = 3;
  op.shape.kernel_w = 3;
  op.shape.stride = 1;
  op.shape.padding = 1;
  op.tile = TileShape{64, 32, 36};
  op.inputs = {builder.tensor("x", {2, 16, 14, 14}), builder.tensor("w", {32, 16, 3, 3})};
  op.outputs = {builder.tensor("y", {2, 32, 14, 14})};
  op.useful_flops = 2ULL * 2 * 32 * 14 * 14 * 16 * 9;
  builder.add(op);
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  CHECK(lowering->useful_flops() == op.useful_flops);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.in_bounds);
  CHECK(totals.useful == op.useful_flops);
  CHECK(totals.executed == lowering->executed_flops());
  CHECK(totals.executed >= totals.useful);
  CHECK(totals.written == 2ULL * 32 * 14 * 14 * 2);
  // All filters are read at least once.
  CHECK(totals.read >= 32ULL * 16 * 9 * 2);
}
