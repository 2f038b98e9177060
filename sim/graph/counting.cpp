#include "sim/graph/counting.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace roofsim {

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) throw std::overflow_error("a count overflows 64 bits");
  return result;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) throw std::overflow_error("a count overflows 64 bits");
  return result;
}

namespace {

std::uint64_t product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t result = 1;
  for (const auto factor : factors) result = checked_mul(result, factor);
  return result;
}

// floor(value * numerator / denominator) without a 128-bit intermediate (numerator < denominator^2 here).
std::uint64_t scaled(std::uint64_t value, std::uint64_t numerator, std::uint64_t denominator) {
  return checked_add(checked_mul(value / denominator, numerator), (value % denominator) * numerator / denominator);
}

}  // namespace

std::uint64_t default_flops_per_element(OpKind kind) {
  switch (kind) {
    case OpKind::softmax: return 5;
    case OpKind::layernorm: return 8;
    case OpKind::rmsnorm: return 4;
    default: return 1;
  }
}

ElementWork element_work(const Op& op) {
  ElementWork work;
  auto& e = work.per_element;
  const auto& s = op.shape;
  switch (op.kind) {
    case OpKind::softmax:
      e.vector_alu = 1;
      e.vector_fma = 3;
      e.exp2 = 1;
      work.per_row.reciprocal = 1;
      break;
    case OpKind::layernorm:
      e.vector_fma = 5;
      work.per_row.rsqrt = 1;
      break;
    case OpKind::rmsnorm:
      e.vector_fma = 3;
      work.per_row.rsqrt = 1;
      break;
    case OpKind::reduction: e.vector_fma = s.flops_per_element; break;
    case OpKind::elementwise:
      e.vector_fma = s.flops_per_element;
      e.exp2 = s.exp2_per_element;
      e.reciprocal = s.reciprocal_per_element;
      break;
    default: break;
  }
  return work;
}

PhaseWork engine_work(const Op& op) {
  const auto& s = op.shape;
  PhaseWork work;
  const auto scale = [](PhaseWork unit, std::uint64_t n) {
    unit.flops = checked_mul(unit.flops, n);
    unit.vector_fma = checked_mul(unit.vector_fma, n);
    unit.vector_alu = checked_mul(unit.vector_alu, n);
    unit.exp2 = checked_mul(unit.exp2, n);
    unit.reciprocal = checked_mul(unit.reciprocal, n);
    unit.rsqrt = checked_mul(unit.rsqrt, n);
    return unit;
  };
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::conv2d: work.flops = op.useful_flops; break;
    case OpKind::attention: {
      work.flops = op.useful_flops;
      const std::uint64_t pairs = checked_mul(checked_mul(s.batch, s.heads), attention_pairs(s));
      work.vector_alu = checked_add(pairs, pairs / 2);
      work.vector_fma = checked_mul(pairs, 2);
      work.exp2 = pairs;
      break;
    }
    case OpKind::elementwise: work = scale(element_work(op).per_element, s.elements); break;
    case OpKind::reduction:
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::rmsnorm: {
      const auto per = element_work(op);
      work = scale(per.per_element, checked_mul(s.rows, s.cols));
      work += scale(per.per_row, s.rows);
      break;
    }
    default: break;
  }
  return work;
}

std::uint64_t attention_pairs(const OpShape& shape) {
  if (!shape.causal) return checked_mul(shape.seq_q, shape.seq_kv);
  // The queries are the last seq_q positions of the seq_kv keys: query i (0-based) sees seq_kv - seq_q + i + 1 keys.
  const std::uint64_t queries = std::min(shape.seq_q, shape.seq_kv);
  const std::uint64_t earlier = shape.seq_kv - queries;
  const std::uint64_t triangle =
      queries % 2 == 0 ? checked_mul(queries / 2, queries + 1) : checked_mul(queries, (queries + 1) / 2);
  return checked_add(checked_mul(queries, earlier), triangle);
}

std::uint64_t conv_output_height(const OpShape& shape) {
  const auto padded = shape.height + 2 * shape.padding;
  if (padded < shape.kernel_h || shape.stride == 0) return 0;
  return (padded - shape.kernel_h) / shape.stride + 1;
}

std::uint64_t conv_output_width(const OpShape& shape) {
  const auto padded = shape.width + 2 * shape.padding;
  if (padded < shape.kernel_w || shape.stride == 0) return 0;
  return (padded - shape.kernel_w) / shape.stride + 1;
}

Bytes ring_network_bytes(OpKind kind, Bytes message_bytes, std::uint64_t group) {
  if (group <= 1) return 0;
  switch (kind) {
    case OpKind::allreduce: return scaled(message_bytes, 2 * (group - 1), group);
    case OpKind::allgather:
    case OpKind::reducescatter:
    case OpKind::alltoall: return scaled(message_bytes, group - 1, group);
    case OpKind::broadcast:
    case OpKind::sendrecv: return message_bytes;
    default: return 0;
  }
}

void count_op(Op& op, const std::vector<Tensor>& tensors) {
  const auto& s = op.shape;
  const Bytes element = element_bytes(op.dtype);
  switch (op.kind) {
    case OpKind::gemm: op.useful_flops = product({2, s.batch, s.m, s.n, s.k}); break;
    case OpKind::conv2d:
      op.useful_flops = product(
          {2, s.batch, s.filters, conv_output_height(s), conv_output_width(s), s.channels, s.kernel_h, s.kernel_w});
      break;
    case OpKind::attention: op.useful_flops = product({4, s.batch, s.heads, attention_pairs(s), s.head_dim}); break;
    case OpKind::elementwise: op.useful_flops = product({s.elements, s.flops_per_element}); break;
    case OpKind::reduction:
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::rmsnorm: op.useful_flops = product({s.rows, s.cols, s.flops_per_element}); break;
    case OpKind::allreduce:
    case OpKind::reducescatter:
      op.useful_flops = s.group <= 1 ? 0 : scaled(s.message_bytes / element, s.group - 1, s.group);
      break;
    default: op.useful_flops = 0; break;
  }

  // Each distinct tensor once, even when an op names it twice (x + x).
  std::set<std::size_t> seen;
  op.bytes_read = 0;
  op.resident_bytes_read = 0;
  for (const auto index : op.inputs) {
    if (!seen.insert(index).second) continue;
    const Tensor& tensor = tensors.at(index);
    Bytes read = tensor.bytes;
    if (op.kind == OpKind::embedding && seen.size() == 1) {
      // The table: only the gathered rows (distinct tokens are at most the vocabulary).
      read = product({std::min(s.rows, s.vocab == 0 ? s.rows : s.vocab), s.cols, element_bytes(tensor.dtype)});
    }
    op.bytes_read = checked_add(op.bytes_read, read);
    if (tensor.resident) op.resident_bytes_read = checked_add(op.resident_bytes_read, read);
  }
  seen.clear();
  op.bytes_written = 0;
  for (const auto index : op.outputs) {
    if (seen.insert(index).second) op.bytes_written = checked_add(op.bytes_written, tensors.at(index).bytes);
  }

  op.network_bytes = is_collective(op.kind) ? ring_network_bytes(op.kind, s.message_bytes, s.group) : 0;
  // DESIGN.md section 5: the analytic DRAM-aware line assumes streams hit open rows and gathers miss.
  op.analytic_row_hit_rate = op.kind == OpKind::embedding ? 0.0 : 1.0;
}

}  // namespace roofsim
