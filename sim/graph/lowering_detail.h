#pragma once
// Lowerings that live in their own files: attention (lowering_attention.cpp), the embedding gather
// (lowering_gather.cpp) and the ERT kernel (lowering_ert.cpp). lower_op (lowering.cpp) dispatches to them; nothing else
// includes this header.
#include <memory>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/graph/lowering.h"
#include "sim/graph/op.h"

namespace roofsim::detail {

// Naive or flash attention for prefill and decode; inputs [q, k, v], one fused [qkv], or [qkv, k_cache, v_cache].
[[nodiscard]] std::unique_ptr<OpLowering> lower_attention(const Op& op, const std::vector<Tensor>& tensors,
                                                          const HardwareParams& hw);

// Embedding: gathers of table rows at pseudo-random token ids (inputs [table, ids], output [tokens, cols]).
[[nodiscard]] std::unique_ptr<OpLowering> lower_embedding(const Op& op, const std::vector<Tensor>& tensors,
                                                          const HardwareParams& hw);

// The Empirical Roofline Toolkit's kernel: an element-wise op with shape.ert_passes > 0 (lowering_ert.cpp).
[[nodiscard]] std::unique_ptr<OpLowering> lower_ert(const Op& op, const std::vector<Tensor>& tensors,
                                                    const HardwareParams& hw);

// The token id of position `token` under seed `seed`: splitmix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) reduced to the vocabulary. Deterministic across runs and platforms.
[[nodiscard]] std::uint64_t token_id(std::uint64_t seed, std::uint64_t token, std::uint64_t vocab);

}  // namespace roofsim::detail
