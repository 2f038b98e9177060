#pragma once
// How a mixture-of-experts layer's token assignments fall on its experts, and what expert parallelism makes of it:
// plain arithmetic, deterministic for a seed, so that the graph of the most loaded rank and its tests agree.
//
// A layer routes `tokens` tokens to `top_k` experts each: tokens x top_k assignments. `balanced` gives every expert
// the same share (the ideal the auxiliary balancing losses aim at: Fedus et al., "Switch Transformers", 2021, sec.
// 2.2); `zipf` gives the expert of popularity rank r (1-based) a share proportional to 1 / r^s, with the ranks
// assigned to experts by a permutation drawn from the seed. Counts are the shares rounded by largest remainder, so
// they sum to the assignments exactly. A capacity factor c > 0 caps each expert at ceil(c x assignments / experts)
// tokens (Lepikhin et al., "GShard", 2020, sec. 2.2); the excess is dropped (the token skips that expert).
#include <cstdint>
#include <vector>

namespace roofsim {

enum class RoutingKind { balanced, zipf };

struct RoutingParams {
  RoutingKind kind = RoutingKind::balanced;
  double zipf_s = 1.0;         // zipf exponent
  std::uint64_t seed = 0;      // permutation of popularity ranks over experts
  double capacity_factor = 0;  // 0: no capacity limit
};

struct ExpertLoad {
  std::vector<std::uint64_t> tokens;  // per expert, after the capacity limit
  std::uint64_t dropped = 0;          // assignments beyond capacity
  std::uint64_t capacity = 0;         // per expert; 0 when unlimited
};

// The share of assignments per expert (sums to 1).
[[nodiscard]] std::vector<double> expert_shares(std::uint64_t experts, const RoutingParams& params);

// Token counts per expert for `assignments` assignments.
[[nodiscard]] ExpertLoad route_tokens(std::uint64_t assignments, std::uint64_t experts, const RoutingParams& params);

// Expert parallelism over `ranks` ranks: rank r holds experts [r E / ranks, (r + 1) E / ranks). The rank with the
// most tokens (the lowest index among equals); the combine all-to-all waits for it, so its time is the layer's.
[[nodiscard]] std::uint64_t most_loaded_rank(const ExpertLoad& load, std::uint64_t ranks);
[[nodiscard]] std::uint64_t rank_tokens(const ExpertLoad& load, std::uint64_t ranks, std::uint64_t rank);

}  // namespace roofsim
