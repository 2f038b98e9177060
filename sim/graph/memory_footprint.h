#pragma once
// The device memory one rank needs for a model: parameters, gradients, optimizer state, activations kept for the
// backward pass, and the KV cache, from the config and the parallel layout alone (closed forms, so that a run can be
// refused before anything is simulated).
//
// Training uses mixed precision as Micikevicius et al. ("Mixed precision training", ICLR 2018) and ZeRO (Rajbhandari
// et al., SC'20, sec. 3) count it: 2-byte parameters and gradients, and K = 12 bytes of optimizer state per parameter
// (fp32 master weights, Adam's first and second moments). ZeRO-1 shards the optimizer state over the data-parallel
// ranks, ZeRO-2 the gradients too, ZeRO-3 the parameters too. Expert parameters are replicated on dp / ep ranks, so
// that is their sharding degree.
//
// Activations per layer and micro-batch are the tensors the backward pass reads, counted as the graph builder makes
// them (FlashAttention: no score matrix, 4-byte row statistics per head and query): the two norms' inputs and outputs
// (4 tokens x hidden; divided by tp with sequence parallelism), Q, K and V, the attention output, the MLP's up
// projection and activation output (for an MoE layer: the router logits, the dispatched rows of this rank's experts
// and their up and activation outputs, and the shared experts'). Full recomputation keeps only each layer's input
// (Korthikanti et al., "Reducing activation recomputation in large transformer models", MLSys 2023, sec. 4). The
// first pipeline stage holds the activations of as many micro-batches as its schedule has in flight
// (pipeline_schedule.h).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/graph/model_config.h"
#include "sim/graph/model_workload_args.h"

namespace roofsim {

struct MemoryFootprint {
  Bytes params_bytes = 0;
  Bytes grads_bytes = 0;
  Bytes optimizer_bytes = 0;
  Bytes activations_bytes = 0;
  Bytes kv_cache_bytes = 0;
  std::uint64_t params_per_rank = 0;  // parameters this rank holds (before ZeRO-3 sharding)
  std::uint64_t micro_batches_in_flight = 1;

  [[nodiscard]] Bytes total_bytes() const {
    return params_bytes + grads_bytes + optimizer_bytes + activations_bytes + kv_cache_bytes;
  }
  // "params 17.6 GB, grads 0 B, ..." for errors and the console.
  [[nodiscard]] std::string breakdown() const;
};

// Parameters one rank holds: its stage's layers, its tensor-parallel share, its experts (expert_params: those of the
// routed experts only, which ZeRO shards over dp / ep rather than dp).
struct RankParams {
  std::uint64_t dense = 0;
  std::uint64_t experts = 0;
};
[[nodiscard]] RankParams rank_params(const ModelConfig& config, const ModelWorkloadArgs& args);

// Activation bytes of one layer and one micro-batch of `tokens` tokens (see above), without recomputation.
[[nodiscard]] Bytes layer_activation_bytes(const ModelConfig& config, const ModelWorkloadArgs& args,
                                           std::uint64_t layer, std::uint64_t tokens);

[[nodiscard]] MemoryFootprint model_memory_footprint(const ModelConfig& config, const ModelWorkloadArgs& args);

}  // namespace roofsim
