#include <doctest/doctest.h>

#include "sim/graph/lowering.h"
#include "tests/scenario/test_device.h"

using namespace roofsim;

namespace {
struct Moved {
  Bytes read = 0, written = 0;
  Flops executed = 0, useful = 0;
};
Moved walk(const OpLowering& lowering) {
  Moved moved;
  TileStep step;
  for (std::uint64_t tile = 0; tile < lowering.tiles(); ++tile) {
    for (std::uint32_t s = 0; s < lowering.steps(tile); ++s) {
      lowering.step(tile, s, step);
      for (const auto& c : step.reads) moved.read += c.bytes;
      for (const auto& c : step.writes) moved.written += c.bytes;
      moved.executed += step.executed_flops;
      moved.useful += step.useful_flops;
    }
  }
  return moved;
}
}  // namespace

TEST_CASE("element-wise: each input read once, the output written once, one chunk per operand per step") {
  const auto hw = test::TestDevice{}.build();
  test::WorkloadBuilder builder;
  const std::uint64_t elements = 1'000'003;  // not a multiple of anything
  builder.elementwise("add", elements, 2, 3);
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  const auto moved = walk(*lowering);
  CHECK(moved.read == 2 * elements * 2);
  CHECK(moved.written == elements * 2);
  CHECK(moved.useful == 3 * elements);
  CHECK(moved.executed == lowering->executed_flops());
  CHECK(moved.executed >= moved.useful);
  TileStep step;
  lowering->step(0, 0, step);
  CHECK(step.reads.size() == 2);
  CHECK(step.writes.size() == 1);
  CHECK(step.reads[0].bytes == hw.compute.request_bytes);
}

TEST_CASE("reduction: rows are read once and one value per row is written") {
  const auto hw = test::TestDevice{}.build();
  test::WorkloadBuilder builder;
  Op op;
  op.name = "sum";
  op.kind = OpKind::reduction;
  op.dtype = DataType::bf16;
  op.shape.rows = 1000;
  op.shape.cols = 3000;
  op.inputs = {builder.tensor("x", {1000, 3000})};
  op.outputs = {builder.tensor("y", {1000})};
  op.useful_flops = 1000 * 3000;
  builder.add(op);
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  const auto moved = walk(*lowering);
  CHECK(moved.read == 1000ULL * 3000 * 2);
  CHECK(moved.written == 1000ULL * 2);
  CHECK(moved.useful == 1000ULL * 3000);
}

TEST_CASE("collectives are not lowered (zero time on a single device)") {
  const auto hw = test::TestDevice{}.build();
  Op op;
  op.kind = OpKind::allreduce;
  CHECK(lower_op(op, {}, hw) == nullptr);
}

TEST_CASE("element-wise work runs on the vector engine, matrix work on the fastest") {
  const auto hw = test::TestDevice{}.build();
  Op add;
  add.kind = OpKind::elementwise;
  add.dtype = DataType::bf16;
  CHECK(op_engine(add, hw.compute)->name == "vector");
  Op gemm;
  gemm.kind = OpKind::gemm;
  gemm.dtype = DataType::bf16;
  CHECK(op_engine(gemm, hw.compute)->name == "matrix");
}

TEST_CASE("a small streaming op is split into at least as many tiles as the device has slots") {
  test::TestDevice spec;
  spec.units = 16;
  spec.occupancy = 2;
  const auto hw = spec.build();
  test::WorkloadBuilder builder;
  builder.elementwise("add", 64 * 2048, 2);  // 64 requests of 2048 bf16 elements per operand
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  CHECK(lowering->tiles() == 32);
  CHECK(lowering->steps(0) == 2);
}
