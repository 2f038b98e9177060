// Attention and embedding lowerings: exact FLOP and byte totals against closed forms in every input layout.
#include <doctest/doctest.h>

#include <set>

#include "sim/graph/lowering.h"
#include "sim/graph/lowering_detail.h"
#include "tests/scenario/attention_workload.h"

using namespace roofsim;

namespace {
struct Totals {
  Flops executed = 0, useful = 0;
  Bytes read = 0, written = 0;
  Bytes read_of[8] = {};  // per tensor index (the tests use few tensors)
  Bytes largest_chunk = 0;
  bool in_bounds = true;
};

Totals walk(const OpLowering& lowering, const std::vector<Tensor>& tensors) {
  Totals totals;
  TileStep step;
  for (std::uint64_t tile = 0; tile < lowering.tiles(); ++tile) {
    REQUIRE(lowering.steps(tile) > 0);
    for (std::uint32_t s = 0; s < lowering.steps(tile); ++s) {
      lowering.step(tile, s, step);
      totals.executed += step.executed_flops;
      totals.useful += step.useful_flops;
      for (const auto* list : {&step.reads, &step.writes}) {
        for (const auto& chunk : *list) {
          totals.largest_chunk = std::max(totals.largest_chunk, chunk.bytes);
          const auto view = step.view(chunk);
          for (std::uint32_t i = 0; i < view.count; ++i) {
            const auto& r = view.ranges[i];
            bool inside = false;
            for (std::size_t t = 0; t < tensors.size(); ++t) {
              if (r.address >= tensors[t].address && r.address + r.bytes <= tensors[t].address + tensors[t].bytes) {
                inside = true;
                if (list == &step.reads && t < 8) totals.read_of[t] += r.bytes;
              }
            }
            totals.in_bounds = totals.in_bounds && inside;
          }
          (list == &step.reads ? totals.read : totals.written) += chunk.bytes;
        }
      }
    }
  }
  return totals;
}
}  // namespace

TEST_CASE("Flash attention: useful FLOPs are 4 d per visible pair and K, V are read once per query block") {
  const auto hw = test::TestDevice{}.build();  // 256 KiB local SRAM: 128 x 64 blocks at head_dim 64
  for (const bool causal : {false, true}) {
    test::WorkloadBuilder builder;
    test::AttentionSpec spec;
    spec.causal = causal;
    const auto index = test::add_attention(builder, "attn", spec);
    const auto& w = builder.workload();
    const auto lowering = lower_op(w.ops[index], w.tensors, hw);
    const auto totals = walk(*lowering, w.tensors);
    CHECK(totals.in_bounds);
    CHECK(totals.largest_chunk <= hw.compute.request_bytes);
    CHECK(totals.useful == w.ops[index].useful_flops);
    CHECK(totals.executed == lowering->executed_flops());
    CHECK(totals.executed >= totals.useful);
    const Bytes e = 2, qkv = spec.heads * spec.seq_q * spec.head_dim * e;
    CHECK(totals.read_of[0] == qkv);  // Q once
    CHECK(totals.written == qkv);     // O once
    const std::uint64_t br = lowering->tile_shape().m, bc = lowering->tile_shape().n;
    const std::uint64_t q_blocks = spec.seq_q / br;
    if (!causal) {
      CHECK(totals.read_of[1] == q_blocks * qkv);  // K once per query block
    } else {
      // Query block j sees key blocks up to the end of its rows: (j + 1) br / bc of them.
      std::uint64_t key_blocks = 0;
      for (std::uint64_t j = 0; j < q_blocks; ++j) key_blocks += (j + 1) * br / bc;
      CHECK(totals.read_of[1] == spec.heads * key_blocks * bc * spec.head_dim * e);
    }
  }
}

TEST_CASE("Naive attention moves the score matrix four times (S written, read, P written, read) beyond flash") {
  const auto hw = test::TestDevice{}.build();
  test::AttentionSpec spec;
  test::WorkloadBuilder flash_builder, naive_builder;
  const auto f = test::add_attention(flash_builder, "attn", spec);
  spec.flash = false;
  const auto n = test::add_attention(naive_builder, "attn", spec);
  const auto& fw = flash_builder.workload();
  const auto& nw = naive_builder.workload();
  const auto flash = walk(*lower_op(fw.ops[f], fw.tensors, hw), fw.tensors);
  const auto naive = walk(*lower_op(nw.ops[n], nw.tensors, hw), nw.tensors);
  const Bytes scores = spec.batch * spec.heads * spec.seq_q * spec.seq_kv * 2;
  CHECK(naive.in_bounds);
  CHECK(naive.useful == nw.ops[n].useful_flops);
  CHECK(naive.read + naive.written - (flash.read + flash.written) == 4 * scores);
}

TEST_CASE("Attention layouts: fused qkv and decode with a KV cache read the same bytes as separate tensors") {
  const auto hw = test::TestDevice{}.build();
  for (const auto layout : {test::AttentionLayout::separate, test::AttentionLayout::fused}) {
    test::WorkloadBuilder builder;
    test::AttentionSpec spec;
    spec.kv_heads = 2;  // grouped-query: 2 heads per KV head
    spec.layout = layout;
    const auto index = test::add_attention(builder, "attn", spec);
    const auto& w = builder.workload();
    const auto lowering = lower_op(w.ops[index], w.tensors, hw);
    const auto totals = walk(*lowering, w.tensors);
    CHECK(totals.in_bounds);
    CHECK(totals.useful == w.ops[index].useful_flops);
    // Query blocks run over the rows of a KV head's group (2 heads x 256 positions): K and V once per block.
    const std::uint64_t blocks = spec.heads / spec.kv_heads * spec.seq_q / lowering->tile_shape().m;
    CHECK(totals.read ==
          2 * (spec.heads * spec.seq_q * spec.head_dim + 2 * blocks * spec.kv_heads * spec.seq_kv * spec.head_dim));
  }
  // Decode: one query per sequence against a KV cache of 4096 positions, split across tiles to fill the device.
  test::WorkloadBuilder builder;
  test::AttentionSpec spec;
  spec.batch = 1;
  spec.heads = 8;
  spec.kv_heads = 1;
  spec.seq_q = 1;
  spec.seq_kv = 4096;
  spec.causal = true;
  spec.layout = test::AttentionLayout::decode_cache;
  const auto index = test::add_attention(builder, "attn", spec);
  const auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[index], w.tensors, hw);
  CHECK(lowering->tiles() >= hw.compute.units);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.in_bounds);
  CHECK(totals.useful == 4 * spec.heads * spec.seq_kv * spec.head_dim);
  // K and V caches once (all 8 heads share the KV head, so its rows are in every split's tile); each split reads
  // the 8 heads' queries and writes its partial output.
  CHECK(totals.read_of[1] == spec.seq_kv * spec.head_dim * 2);
  CHECK(totals.read_of[2] == spec.seq_kv * spec.head_dim * 2);
  CHECK(totals.read_of[0] == lowering->tiles() * spec.heads * spec.head_dim * 2);
  CHECK(totals.written == lowering->tiles() * spec.heads * spec.head_dim * 2);
}

TEST_CASE("Embedding: one table row per token at seeded pseudo-random ids, the output written once") {
  CHECK(detail::token_id(1, 5, 50257) == detail::token_id(1, 5, 50257));
  std::set<std::uint64_t> ids;
  for (std::uint64_t t = 0; t < 1000; ++t) {
    const auto id = detail::token_id(7, t, 50257);
    CHECK(id < 50257);
    ids.insert(id);
  }
  CHECK(ids.size() > 950);  // 1000 uniform draws from 50257 collide about 10 times
  const auto hw = test::TestDevice{}.build();
  test::WorkloadBuilder builder;
  const std::uint64_t tokens = 300, cols = 1024, vocab = 50257;
  Op op;
  op.name = "embed";
  op.kind = OpKind::embedding;
  op.dtype = DataType::bf16;
  op.shape.rows = tokens;
  op.shape.cols = cols;
  op.shape.vocab = vocab;
  op.inputs = {builder.tensor("table", {vocab, cols}), builder.tensor("ids", {tokens}, DataType::fp32)};
  op.outputs = {builder.tensor("out", {tokens, cols})};
  count_op(op, builder.workload().tensors);
  builder.add(op);
  const auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.in_bounds);
  CHECK(totals.read == tokens * cols * 2 + tokens * 4);
  CHECK(totals.written == tokens * cols * 2);
}
