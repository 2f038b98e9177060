#pragma once
// Attention and embedding ops built in code for the Engine II tests, in the graph's three attention layouts.
#include <string>

#include "sim/graph/counting.h"
#include "tests/scenario/test_device.h"

namespace roofsim::test {

enum class AttentionLayout { separate, fused, decode_cache };

struct AttentionSpec {
  std::uint64_t batch = 1, heads = 4, kv_heads = 4, seq_q = 256, seq_kv = 256, head_dim = 64;
  bool causal = false;
  bool flash = true;
  AttentionLayout layout = AttentionLayout::separate;
};

inline std::size_t add_attention(WorkloadBuilder& builder, const std::string& name, const AttentionSpec& s) {
  Op op;
  op.name = name;
  op.kind = OpKind::attention;
  op.dtype = DataType::bf16;
  op.shape.batch = s.batch;
  op.shape.heads = s.heads;
  op.shape.kv_heads = s.kv_heads;
  op.shape.seq_q = s.seq_q;
  op.shape.seq_kv = s.seq_kv;
  op.shape.head_dim = s.head_dim;
  op.shape.causal = s.causal;
  op.shape.flash = s.flash;
  const std::uint64_t width = (s.heads + 2 * s.kv_heads) * s.head_dim;
  if (s.layout == AttentionLayout::separate) {
    op.inputs = {builder.tensor(name + ".q", {s.batch, s.heads, s.seq_q, s.head_dim}),
                 builder.tensor(name + ".k", {s.batch, s.kv_heads, s.seq_kv, s.head_dim}),
                 builder.tensor(name + ".v", {s.batch, s.kv_heads, s.seq_kv, s.head_dim})};
  } else {
    op.inputs = {builder.tensor(name + ".qkv", {s.batch, s.seq_q, width})};
    if (s.layout == AttentionLayout::decode_cache) {
      op.inputs.push_back(builder.tensor(name + ".k_cache", {s.batch, s.kv_heads, s.seq_kv, s.head_dim}));
      op.inputs.push_back(builder.tensor(name + ".v_cache", {s.batch, s.kv_heads, s.seq_kv, s.head_dim}));
    }
  }
  op.outputs = {builder.tensor(name + ".out", {s.batch, s.seq_q, s.heads * s.head_dim})};
  if (!s.flash) op.scratch = {builder.tensor(name + ".scores", {s.batch, s.heads, s.seq_q, s.seq_kv})};
  count_op(op, builder.workload().tensors);
  return builder.add(std::move(op));
}

}  // namespace roofsim::test
