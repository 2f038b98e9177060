#pragma once
// Exact counts of an op: useful FLOPs, compulsory bytes, bytes sent over the network, analytic row-hit rate.
// All arithmetic is 64-bit unsigned and checked: a count that would overflow throws std::overflow_error (the loader
// turns it into an InputError naming the op), so a 175B-parameter model is counted exactly or not at all.
//
// FLOP conventions (an FMA counts 2; only the algorithm's work, never padding):
//   gemm        2 * batch * m * n * k
//   conv2d      2 * N * K * P * Q * C * R * S, P = (H + 2 pad - R) / stride + 1 (likewise Q)
//   attention   QK^T and PV: 2 * b * heads * pairs * head_dim each, pairs = seq_q * seq_kv, or for causal attention
//               the (query, key) pairs at or before the query (seq_q * (seq_kv - seq_q) + seq_q (seq_q + 1) / 2,
//               queries being the last seq_q positions); softmax FLOPs are not counted, as in the closed form
//               24 b s h^2 + 4 b s^2 h of Narayanan et al. 2021 (SC'21, "Efficient large-scale language model
//               training on GPU clusters", eq. for F per layer)
//   elementwise elements * flops_per_element (default 1: one add or multiply per element)
//   reduction   rows * cols * flops_per_element (default 1: one add per input element)
//   softmax     rows * cols * flops_per_element (default 5: max, subtract, exp, sum, divide)
//   layernorm   rows * cols * flops_per_element (default 8: mean 1, variance 3, normalise 2, scale and shift 2)
//   rmsnorm     rows * cols * flops_per_element (default 4: square-accumulate 2, normalise 1, scale 1)
//   embedding   0 (a gather)
//   allreduce, reducescatter: the ring's reduce-scatter additions, (p-1)/p * S / element size per rank
//   other collectives: 0
// Work per engine (engine_work), the lane operations a kernel executes besides its matrix FLOPs (an FMA, add or
// multiply is one FMA-class op; max and conversions ALU-class; exp2, reciprocal and rsqrt special-function ops):
//   elementwise flops_per_element FMA-class ops, plus exp2_per_element and reciprocal_per_element
//   reduction   flops_per_element FMA-class ops (one add per element)
//   softmax     per element: max 1 ALU; exp2 argument (x - max) log2 e 1 FMA; exp2 1; sum 1 FMA; scale by 1/sum 1 FMA;
//               per row: 1 reciprocal
//   layernorm   per element 5 FMA-class (mean 1, x - mean 1, variance 1, normalise 1, scale and shift 1); per row
//               1 rsqrt
//   rmsnorm     per element 3 FMA-class (square-accumulate 1, normalise 1, scale 1); per row 1 rsqrt
//   attention   QK^T and PV as matrix FLOPs; per (query, key) pair the online softmax as FlashAttention-2 executes it
//               (Dao 2023, Algorithm 1 and its softmax_rescale_o): row max 1 ALU, exp2 argument s log2e scale - m 1
//               FMA, exp2 1, row sum 1 FMA, and the conversion of P to 16 bits, one ALU op per two scores. The per
//               row and per block terms (rescaling O, the final division) depend on the blocks: the lowering adds
//               them to what it executes, the useful count here leaves them out.
// Compulsory bytes: every distinct input tensor read once, every output written once. An embedding reads only the
// gathered rows (min(tokens, vocab) rows of `cols` elements), not the whole table.
// Network bytes per device under the ring algorithm (Patarasuk and Yuan 2009, J. Parallel Distrib. Comput. 69(2);
// the NCCL "bus bandwidth" factors of nccl-tests doc/PERFORMANCE.md): allreduce 2 (p-1)/p S; allgather,
// reducescatter and alltoall (p-1)/p S; broadcast (pipelined ring) and sendrecv S; p = group size, p = 1 -> 0.
#include <cstdint>
#include <vector>

#include "sim/graph/op.h"

namespace roofsim {

// FLOPs per element of the row-wise and element-wise kinds when the op names none (see above).
[[nodiscard]] std::uint64_t default_flops_per_element(OpKind kind);

// The useful work of an op per kind of engine work (models/kernel/tile.h PhaseWork): matrix FLOPs and the counts
// above; embedding and collectives none.
[[nodiscard]] PhaseWork engine_work(const Op& op);

// The per-element work of a row-wise kind (softmax, layernorm, rmsnorm, reduction) or an element-wise op, and the
// per-row special-function ops of a row-wise kind (reciprocal for softmax, rsqrt for the norms).
struct ElementWork {
  PhaseWork per_element;
  PhaseWork per_row;
};
[[nodiscard]] ElementWork element_work(const Op& op);

// (query, key) pairs that attention computes: seq_q * seq_kv, or the causal pairs.
[[nodiscard]] std::uint64_t attention_pairs(const OpShape& shape);

// Output height/width of a conv2d (0 when the kernel is larger than the padded input).
[[nodiscard]] std::uint64_t conv_output_height(const OpShape& shape);
[[nodiscard]] std::uint64_t conv_output_width(const OpShape& shape);

// Bytes one rank sends for a collective of `message_bytes` over `group` ranks under the ring algorithm.
[[nodiscard]] Bytes ring_network_bytes(OpKind kind, Bytes message_bytes, std::uint64_t group);

// Fills op.useful_flops, bytes_read, resident_bytes_read, bytes_written, network_bytes and analytic_row_hit_rate
// from its shape and tensors. op.shape.message_bytes and op.shape.group must be resolved for collectives.
void count_op(Op& op, const std::vector<Tensor>& tensors);

// Checked 64-bit arithmetic shared by the graph layer.
[[nodiscard]] std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b);
[[nodiscard]] std::uint64_t checked_add(std::uint64_t a, std::uint64_t b);

}  // namespace roofsim
