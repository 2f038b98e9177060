#include "sim/graph/memory_footprint.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/graph/counting.h"
#include "sim/graph/model_counts.h"
#include "sim/graph/moe_routing.h"

namespace roofsim {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

std::string gib(Bytes bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / static_cast<double>(1ULL << 30));
}

// Tokens of one micro-batch on one rank.
std::uint64_t micro_batch_tokens(const ModelWorkloadArgs& a) {
  const std::uint64_t sequences = std::max<std::uint64_t>(1, a.batch / a.micro_batches);
  return checked_mul(sequences, a.phase == ModelPhase::decode ? 1 : a.seq);
}

}  // namespace

std::string MemoryFootprint::breakdown() const {
  return fmt::format("params {}, grads {}, optimizer {}, activations {}, KV cache {}, total {}", gib(params_bytes),
                     gib(grads_bytes), gib(optimizer_bytes), gib(activations_bytes), gib(kv_cache_bytes),
                     gib(total_bytes()));
}

RankParams rank_params(const ModelConfig& c, const ModelWorkloadArgs& a) {
  RankParams p;
  const std::uint64_t stage_layers = ceil_div(c.layers, a.pp);
  // The stage with the most parameters: the first holds the embedding, the last the LM head (both with one stage).
  const std::uint64_t table = ceil_div(checked_mul(c.vocab, c.hidden), a.tp);
  const std::uint64_t positions = c.learned_positions ? checked_mul(c.max_positions, c.hidden) : 0;
  p.dense = a.pp == 1 ? table + positions + (c.tied_embeddings ? 0 : table) : table + positions;
  const std::uint64_t norm = c.rmsnorm ? c.hidden : 2 * c.hidden;
  p.dense += norm;  // the final norm, on the last stage
  for (std::uint64_t layer = 0; layer < stage_layers; ++layer) {
    // The last stage's layers are the model's last; MoE layers come after the dense ones.
    const std::uint64_t model_layer = c.layers - stage_layers + layer;
    p.dense += attention_params_per_layer(c) / a.tp + 2 * norm;
    if (c.mla()) p.dense += c.kv_lora_rank + c.q_lora_rank;
    if (c.moe_layer(model_layer)) {
      const std::uint64_t expert_split = a.ep > 1 ? 1 : a.tp;
      p.experts += c.experts / a.ep * (expert_params(c) / expert_split);
      p.dense += c.shared_experts * expert_params(c) / a.tp + c.hidden * c.experts;
    } else {
      p.dense += dense_mlp_params(c, c.ffn) / a.tp;
    }
  }
  return p;
}

Bytes layer_activation_bytes(const ModelConfig& c, const ModelWorkloadArgs& a, std::uint64_t layer,
                             std::uint64_t tokens) {
  const Bytes e = element_bytes(a.dtype);
  const std::uint64_t h = c.hidden;
  const std::uint64_t heads = c.heads / a.tp;
  const std::uint64_t d = attention_flop_head_dim(c);
  const std::uint64_t replicated = a.sequence_parallel ? tokens / a.tp : tokens;
  std::uint64_t elements = checked_mul(4 * h, replicated);          // norm inputs and outputs
  elements += checked_mul(tokens, qkv_width(c, a.tp) + heads * d);  // Q, K, V and the attention output
  Bytes bytes = checked_mul(checked_mul(tokens, heads), 4);         // softmax statistics, fp32
  if (c.moe_layer(layer)) {
    const ExpertLoad load =
        route_tokens(checked_mul(checked_mul(tokens, a.ep), c.experts_per_token), c.experts, a.routing);
    const std::uint64_t rows = rank_tokens(load, a.ep, most_loaded_rank(load, a.ep));
    const std::uint64_t f = a.ep > 1 ? c.moe_ffn : c.moe_ffn / a.tp;
    elements += checked_mul(tokens, c.experts);                // router logits
    elements += checked_mul(rows, h + (c.gated ? 3 : 2) * f);  // dispatched rows, up, activation
    const std::uint64_t fs = c.shared_experts * c.moe_ffn / a.tp;
    elements += checked_mul(tokens, (c.gated ? 3 : 2) * fs);
  } else {
    const std::uint64_t f = c.ffn / a.tp;
    elements += checked_mul(tokens, (c.gated ? 3 : 2) * f);  // up (gate and up) and activation
  }
  return checked_add(bytes, checked_mul(elements, e));
}

MemoryFootprint model_memory_footprint(const ModelConfig& c, const ModelWorkloadArgs& a) {
  MemoryFootprint m;
  const Bytes e = element_bytes(a.dtype);
  const RankParams p = rank_params(c, a);
  m.params_per_rank = p.dense + p.experts;
  const std::uint64_t stage_layers = ceil_div(c.layers, a.pp);
  const std::uint64_t tokens = micro_batch_tokens(a);
  const std::uint64_t h = c.hidden;
  if (a.phase != ModelPhase::train) {
    m.params_bytes = checked_mul(m.params_per_rank, e);
    const std::uint64_t context = a.phase == ModelPhase::decode ? (a.context == 0 ? a.seq : a.context) + 1 : a.seq;
    // K and V per position and layer: kv_heads x head_dim each (MLA: the expanded heads x (qk + v), as the
    // transformers implementation caches them).
    const std::uint64_t per_position = c.mla()
                                           ? c.heads / a.tp * (c.qk_nope_head_dim + c.qk_rope_head_dim + c.v_head_dim)
                                           : 2 * (c.kv_heads / a.tp) * c.head_dim;
    m.kv_cache_bytes = checked_mul(checked_mul(checked_mul(stage_layers, a.batch), context), per_position * e);
    // The widest live set of one layer: its input, the residual stream and its widest intermediate; or the logits.
    const std::uint64_t widest =
        std::max({qkv_width(c, a.tp),
                  (c.gated ? 2 : 1) * std::max(c.ffn, c.moe_ffn * (c.experts_per_token + c.shared_experts)) / a.tp});
    m.activations_bytes = std::max(checked_mul(checked_mul(tokens, 2 * h + widest), e),
                                   checked_mul(checked_mul(a.batch, ceil_div(c.vocab, a.tp)), e));
    return m;
  }
  const std::uint64_t dense_shards = a.dp, expert_shards = std::max<std::uint64_t>(1, a.dp / a.ep);
  const auto sharded = [&](std::uint64_t bytes_per_param, bool shard) {
    if (!shard) return checked_mul(m.params_per_rank, bytes_per_param);
    return checked_add(ceil_div(checked_mul(p.dense, bytes_per_param), dense_shards),
                       ceil_div(checked_mul(p.experts, bytes_per_param), expert_shards));
  };
  m.params_bytes = sharded(e, a.zero >= 3);
  m.grads_bytes = sharded(e, a.zero >= 2);
  m.optimizer_bytes = sharded(12, a.zero >= 1);
  // Micro-batches whose activations the first stage holds at once.
  m.micro_batches_in_flight = 1;
  std::uint64_t layers_per_pass = stage_layers;
  if (a.pp > 1) {
    const auto chunks = a.pipeline_schedule == PipelineScheduleKind::interleaved ? a.virtual_stages : 1;
    if (a.pipeline_schedule != PipelineScheduleKind::interleaved || a.micro_batches % a.pp == 0) {
      m.micro_batches_in_flight =
          simulate_pipeline(a.pipeline_schedule, a.pp, a.micro_batches, chunks, 1.0, 2.0).peak_in_flight;
      layers_per_pass = ceil_div(stage_layers, chunks);
    }
  }
  Bytes per_pass = 0;
  for (std::uint64_t layer = 0; layer < layers_per_pass; ++layer) {
    per_pass = checked_add(per_pass, a.recompute == Recompute::full
                                         ? checked_mul(checked_mul(a.sequence_parallel ? tokens / a.tp : tokens, h), e)
                                         : layer_activation_bytes(c, a, c.layers - stage_layers + layer, tokens));
  }
  m.activations_bytes = checked_mul(per_pass, m.micro_batches_in_flight);
  // The layer being recomputed holds its full activations during its backward pass.
  if (a.recompute == Recompute::full) m.activations_bytes += layer_activation_bytes(c, a, c.layers - 1, tokens);
  // Logits of the last stage (and their gradient).
  m.activations_bytes += checked_mul(checked_mul(tokens, ceil_div(c.vocab, a.tp)), 2 * e);
  return m;
}

}  // namespace roofsim
