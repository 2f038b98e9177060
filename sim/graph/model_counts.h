#pragma once
// Closed-form counts of a model from its config alone: parameters (total, per layer, active per token) and the FLOPs
// per token of a forward pass. These are the figures published model cards give and the graph builder must agree
// with; tests hold the built graphs to them.
//
// Parameters, per the transformers implementations (modeling_<type>.py):
//   embedding   vocab x hidden (plus max_positions x hidden learned positions for GPT-2/3); the LM head another
//               vocab x hidden unless tie_word_embeddings
//   attention   Q, K, V: hidden x (heads + 2 kv_heads) head_dim; output: heads head_dim x hidden; biases where the
//               family has them (GPT-2/3 all, Qwen2 Q, K and V)
//   MLA         q_a hidden x q_lora, q_b q_lora x heads (nope + rope); kv_a hidden x (kv_lora + rope), kv_b
//               kv_lora x heads (nope + v); output heads v x hidden (DeepSeek-V2 report, sec. 2.1)
//   MLP         gated: 3 hidden ffn (gate, up, down); GELU: 2 hidden ffn (+ ffn + hidden biases)
//   MoE         router hidden x experts (+ experts bias); each expert a gated MLP of moe_ffn; shared experts likewise
//   norms       hidden per norm (x2 with LayerNorm's bias): two per layer and a final one; MLA's latent norms
//               q_lora and kv_lora per layer
// Forward FLOPs per token: 2 x the weights a token multiplies (matmul_params_per_token: the layers' GEMM weights, the
// active experts only, and the LM head; not the embedding gather, norms or biases), plus attention's 4 x heads x
// head_dim per (query, key) pair per layer (counting.h).
#include <cstdint>

#include "sim/graph/model_config.h"

namespace roofsim {

struct ModelParamCounts {
  std::uint64_t embedding = 0;         // token (and position) tables
  std::uint64_t lm_head = 0;           // 0 when tied to the embedding
  std::uint64_t attention = 0;         // all layers
  std::uint64_t dense_mlp = 0;         // all dense layers
  std::uint64_t experts = 0;           // all routed experts of all MoE layers
  std::uint64_t shared_experts = 0;    // all MoE layers
  std::uint64_t routers = 0;           // all MoE layers
  std::uint64_t norms = 0;             // all norms (and biases of norms)
  std::uint64_t total = 0;             // the sum
  std::uint64_t active_per_token = 0;  // total minus the routed experts a token does not use
};

[[nodiscard]] ModelParamCounts count_model_params(const ModelConfig& config);

// Parameters of one layer by part.
[[nodiscard]] std::uint64_t attention_params_per_layer(const ModelConfig& config);
[[nodiscard]] std::uint64_t dense_mlp_params(const ModelConfig& config, std::uint64_t ffn);
[[nodiscard]] std::uint64_t expert_params(const ModelConfig& config);  // one routed expert

// The GEMM weights one token multiplies in a forward pass (see above), over `layers` layers (0: all) and with the LM
// head when `with_head`.
[[nodiscard]] std::uint64_t matmul_params_per_token(const ModelConfig& config, std::uint64_t layers = 0,
                                                    bool with_head = true);

// The attention head width whose 4 x pairs x width FLOPs equal QK^T (qk width) plus PV (v width): head_dim, or for
// MLA the mean of (nope + rope) and v_head_dim.
[[nodiscard]] std::uint64_t attention_flop_head_dim(const ModelConfig& config);

// Elements per token of one rank's Q, K and V as attention reads them (`tp` ranks splitting the heads): (heads + 2
// kv_heads) x head_dim; for MLA each at its own width, Q and the expanded K heads x (nope + rope), V heads x v.
[[nodiscard]] std::uint64_t qkv_width(const ModelConfig& config, std::uint64_t tp = 1);

}  // namespace roofsim
