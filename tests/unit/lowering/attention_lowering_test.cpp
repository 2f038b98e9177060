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
  Bytes written_of[8] = {};
  Bytes workspace_read = 0, workspace_written = 0;             // past the end of the tensors
  std::vector<std::vector<AddressRange>> workspace_writes_of;  // per tile
  PhaseWork work;
  Bytes largest_chunk = 0;
  bool in_bounds = true;  // every range in a tensor or in the workspace past them
};

Totals walk(const OpLowering& lowering, const std::vector<Tensor>& tensors, std::uint64_t first_tile = 0,
            std::uint64_t end_tile = ~std::uint64_t{0}) {
  Totals totals;
  Bytes tensors_end = 0;
  for (const auto& t : tensors) tensors_end = std::max(tensors_end, t.address + t.bytes);
  TileStep step;
  end_tile = std::min(end_tile, lowering.tiles());
  totals.workspace_writes_of.resize(end_tile);
  for (std::uint64_t tile = first_tile; tile < end_tile; ++tile) {
    REQUIRE(lowering.steps(tile) > 0);
    for (std::uint32_t s = 0; s < lowering.steps(tile); ++s) {
      lowering.step(tile, s, step);
      totals.executed += step.executed_flops;
      totals.useful += step.useful_flops;
      totals.work += step.work();
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
                if (t < 8) (list == &step.reads ? totals.read_of : totals.written_of)[t] += r.bytes;
              }
            }
            if (!inside && r.address >= tensors_end) {
              inside = true;
              (list == &step.reads ? totals.workspace_read : totals.workspace_written) += r.bytes;
              if (list == &step.writes) totals.workspace_writes_of[tile].push_back(r);
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
  // One KV head of one sequence: one query block, split 4 ways to fill the 4 units, and its combine tile.
  const std::uint64_t splits = hw.compute.units;
  REQUIRE(lowering->tiles() == splits + 1);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.in_bounds);
  CHECK(totals.useful == 4 * spec.heads * spec.seq_kv * spec.head_dim);
  // K and V caches once (all 8 heads share the KV head, so its rows are in every split's tile); each split reads
  // the 8 heads' queries and writes its fp32 partial rows and log-sum-exps; the combine writes O once.
  CHECK(totals.read_of[1] == spec.seq_kv * spec.head_dim * 2);
  CHECK(totals.read_of[2] == spec.seq_kv * spec.head_dim * 2);
  CHECK(totals.read_of[0] == splits * spec.heads * spec.head_dim * 2);
  CHECK(totals.written_of[3] == spec.heads * spec.head_dim * 2);
  const Bytes workspace = splits * spec.heads * (spec.head_dim + 1) * 4;
  CHECK(totals.workspace_written == workspace);
  CHECK(totals.workspace_read == workspace);
  CHECK(lowering->partial_sum_bytes() == workspace);
  CHECK(totals.written == spec.heads * spec.head_dim * 2 + workspace);
}

namespace {
// A decode step of `batch` sequences, `kv_heads` KV heads of 4 query heads each, on a device of `units` units.
struct Decode {
  test::WorkloadBuilder builder;
  test::AttentionSpec spec;
  std::size_t index = 0;
  Decode(std::uint64_t batch, std::uint64_t kv_heads) {
    spec.batch = batch;
    spec.kv_heads = kv_heads;
    spec.heads = 4 * kv_heads;
    spec.seq_q = 1;
    spec.seq_kv = 2048;
    spec.head_dim = 128;
    spec.causal = true;
    spec.layout = test::AttentionLayout::decode_cache;
    index = test::add_attention(builder, "attn", spec);
  }
};

bool overlap(const AddressRange& a, const AddressRange& b) {
  return a.address < b.address + b.bytes && b.address < a.address + a.bytes;
}
}  // namespace

TEST_CASE("Split-KV decode: each split writes its own workspace slot, the combine reads them all and writes O") {
  auto device = test::TestDevice{};
  device.units = 16;
  const auto hw = device.build();
  Decode decode(2, 2);  // 4 query blocks of 4 rows, 4 splits each
  const auto& w = decode.builder.workload();
  const auto& s = decode.spec;
  const auto lowering = lower_op(w.ops[decode.index], w.tensors, hw);
  const std::uint64_t blocks = s.batch * s.kv_heads, splits = 4, rows = s.heads / s.kv_heads;
  // FlashAttention-2 combines 4 rows per block at head_dim 128: 16 output rows, 4 combine tiles.
  REQUIRE(lowering->tiles() == blocks * splits + s.batch * s.heads / 4);
  CHECK(lowering->description().find("4 key splits + combine") != std::string::npos);
  const auto all = walk(*lowering, w.tensors);
  CHECK(all.in_bounds);
  CHECK(all.executed == lowering->executed_flops());
  CHECK(all.useful == w.ops[decode.index].useful_flops);

  // No two split tiles' workspace writes overlap, and each split tile writes rows x (d + 1) fp32 values.
  const std::uint64_t split_tiles = blocks * splits;
  for (std::uint64_t a = 0; a < split_tiles; ++a) {
    Bytes bytes = 0;
    for (const auto& r : all.workspace_writes_of[a]) bytes += r.bytes;
    CHECK(bytes == rows * (s.head_dim + 1) * 4);
    for (std::uint64_t b = a + 1; b < split_tiles; ++b) {
      for (const auto& ra : all.workspace_writes_of[a]) {
        for (const auto& rb : all.workspace_writes_of[b]) CHECK_FALSE(overlap(ra, rb));
      }
    }
  }
  // The split tiles write nothing to O; the combine tiles read splits x rows x (d + 1) fp32 values each, write their
  // rows x d bf16 outputs and write nothing else. Each split's slot is read once, whole.
  const auto split = walk(*lowering, w.tensors, 0, split_tiles);
  CHECK(split.written_of[3] == 0);
  CHECK(split.workspace_read == 0);
  const auto combine = walk(*lowering, w.tensors, split_tiles);
  CHECK(combine.workspace_read == blocks * splits * rows * (s.head_dim + 1) * 4);
  CHECK(combine.read == combine.workspace_read);
  CHECK(combine.workspace_written == 0);
  CHECK(combine.written == s.batch * s.heads * s.head_dim * 2);
  CHECK(combine.written_of[3] == combine.written);
  CHECK(combine.executed == 0);
  // Per row: splits ALU (max), 2 splits + 1 FMA and exp2 (weights and total), splits x d FMA, d / 2 conversions.
  const std::uint64_t n = s.batch * s.heads;
  CHECK(combine.work.vector_alu == n * (splits + s.head_dim / 2));
  CHECK(combine.work.vector_fma == n * (2 * splits + 1 + splits * s.head_dim));
  CHECK(combine.work.exp2 == n * (2 * splits + 1));
}

TEST_CASE("Without a key split (enough query blocks to fill the device) there is no workspace and no combine") {
  auto device = test::TestDevice{};
  device.units = 4;
  const auto hw = device.build();
  Decode decode(2, 2);  // 4 query blocks fill the 4 units
  const auto& w = decode.builder.workload();
  const auto lowering = lower_op(w.ops[decode.index], w.tensors, hw);
  CHECK(lowering->tiles() == 4);
  CHECK(lowering->partial_sum_bytes() == 0);
  CHECK(lowering->description().find("split") == std::string::npos);
  const auto totals = walk(*lowering, w.tensors);
  CHECK(totals.in_bounds);
  CHECK(totals.workspace_read + totals.workspace_written == 0);
  CHECK(totals.written == w.tensors[3].bytes);
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
