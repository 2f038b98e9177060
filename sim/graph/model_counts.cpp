#include "sim/graph/model_counts.h"

#include "sim/graph/counting.h"

namespace roofsim {

namespace {

std::uint64_t norm_params(const ModelConfig& c, std::uint64_t width) {
  return c.rmsnorm ? width : 2 * width;
}

std::uint64_t moe_layers(const ModelConfig& c) {
  return c.moe() ? c.layers - c.first_dense_layers : 0;
}

}  // namespace

std::uint64_t attention_params_per_layer(const ModelConfig& c) {
  const std::uint64_t h = c.hidden;
  if (c.mla()) {
    const std::uint64_t qk = c.qk_nope_head_dim + c.qk_rope_head_dim;
    std::uint64_t q = 0;
    if (c.q_lora_rank > 0) {
      q = checked_add(checked_mul(h, c.q_lora_rank), checked_mul(c.q_lora_rank, checked_mul(c.heads, qk)));
    } else {
      q = checked_mul(h, checked_mul(c.heads, qk));
    }
    const std::uint64_t kv =
        checked_add(checked_mul(h, c.kv_lora_rank + c.qk_rope_head_dim),
                    checked_mul(c.kv_lora_rank, checked_mul(c.heads, c.qk_nope_head_dim + c.v_head_dim)));
    const std::uint64_t o = checked_mul(checked_mul(c.heads, c.v_head_dim), h);
    return checked_add(checked_add(q, kv), o);
  }
  const std::uint64_t q_width = c.heads * c.head_dim;
  const std::uint64_t qkv_width = (c.heads + 2 * c.kv_heads) * c.head_dim;
  std::uint64_t params = checked_add(checked_mul(h, qkv_width), checked_mul(q_width, h));
  if (c.biases || c.qkv_bias) params += qkv_width;
  if (c.biases) params += h;
  return params;
}

std::uint64_t dense_mlp_params(const ModelConfig& c, std::uint64_t ffn) {
  if (c.gated) return checked_mul(3, checked_mul(c.hidden, ffn));
  std::uint64_t params = checked_mul(2, checked_mul(c.hidden, ffn));
  if (c.biases) params += ffn + c.hidden;
  return params;
}

std::uint64_t expert_params(const ModelConfig& c) {
  return dense_mlp_params(c, c.moe_ffn);
}

ModelParamCounts count_model_params(const ModelConfig& c) {
  ModelParamCounts n;
  n.embedding = checked_mul(c.vocab, c.hidden);
  if (c.learned_positions) n.embedding += checked_mul(c.max_positions, c.hidden);
  n.lm_head = c.tied_embeddings ? 0 : checked_mul(c.vocab, c.hidden);
  n.attention = checked_mul(c.layers, attention_params_per_layer(c));
  const std::uint64_t dense_layers = c.layers - moe_layers(c);
  n.dense_mlp = checked_mul(dense_layers, dense_mlp_params(c, c.ffn));
  const std::uint64_t moe = moe_layers(c);
  n.experts = checked_mul(moe, checked_mul(c.experts, expert_params(c)));
  n.shared_experts = checked_mul(moe, checked_mul(c.shared_experts, expert_params(c)));
  n.routers = checked_mul(moe, checked_mul(c.hidden, c.experts) + (c.router_bias ? c.experts : 0));
  std::uint64_t per_layer_norms = 2 * norm_params(c, c.hidden);
  if (c.mla()) per_layer_norms += c.kv_lora_rank + (c.q_lora_rank > 0 ? c.q_lora_rank : 0);
  n.norms = checked_add(checked_mul(c.layers, per_layer_norms), norm_params(c, c.hidden));
  n.total = n.embedding + n.lm_head + n.attention + n.dense_mlp + n.experts + n.shared_experts + n.routers + n.norms;
  const std::uint64_t unused_experts = c.moe() ? c.experts - c.experts_per_token : 0;
  n.active_per_token = n.total - checked_mul(moe, checked_mul(unused_experts, expert_params(c)));
  return n;
}

std::uint64_t matmul_params_per_token(const ModelConfig& c, std::uint64_t layers, bool with_head) {
  if (layers == 0) layers = c.layers;
  std::uint64_t total = with_head ? checked_mul(c.vocab, c.hidden) : 0;
  for (std::uint64_t layer = 0; layer < layers; ++layer) {
    std::uint64_t attention = attention_params_per_layer(c);
    // Biases are added, not multiplied.
    if (c.biases || c.qkv_bias) attention -= (c.heads + 2 * c.kv_heads) * c.head_dim;
    if (c.biases) attention -= c.hidden;
    total = checked_add(total, attention);
    if (c.moe_layer(layer)) {
      const std::uint64_t expert_weights = checked_mul(3, checked_mul(c.hidden, c.moe_ffn));
      total = checked_add(total, checked_mul(c.hidden, c.experts));  // router
      total = checked_add(total, checked_mul(c.experts_per_token + c.shared_experts, expert_weights));
    } else {
      const std::uint64_t mlp = checked_mul(c.gated ? 3 : 2, checked_mul(c.hidden, c.ffn));
      total = checked_add(total, mlp);
    }
  }
  return total;
}

std::uint64_t attention_flop_head_dim(const ModelConfig& c) {
  if (c.mla()) return (c.qk_nope_head_dim + c.qk_rope_head_dim + c.v_head_dim) / 2;
  return c.head_dim;
}

std::uint64_t qkv_width(const ModelConfig& c, std::uint64_t tp) {
  const std::uint64_t heads = c.heads / tp;
  if (c.mla()) return heads * (2 * (c.qk_nope_head_dim + c.qk_rope_head_dim) + c.v_head_dim);
  return (heads + 2 * (c.kv_heads / tp)) * c.head_dim;
}

}  // namespace roofsim
