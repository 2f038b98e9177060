#include "sim/graph/moe_routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace roofsim {

std::vector<double> expert_shares(std::uint64_t experts, const RoutingParams& params) {
  std::vector<double> shares(experts, experts == 0 ? 0.0 : 1.0 / static_cast<double>(experts));
  if (params.kind == RoutingKind::balanced || experts == 0) return shares;
  // Fisher-Yates with the engine's raw output (std::shuffle and the distributions differ between libraries; the
  // Mersenne Twister's sequence does not).
  std::vector<std::uint64_t> rank_of(experts);
  std::iota(rank_of.begin(), rank_of.end(), 0);
  std::mt19937_64 engine(params.seed);
  for (std::uint64_t i = experts - 1; i > 0; --i) std::swap(rank_of[i], rank_of[engine() % (i + 1)]);
  double sum = 0;
  for (std::uint64_t r = 1; r <= experts; ++r) sum += 1.0 / std::pow(static_cast<double>(r), params.zipf_s);
  for (std::uint64_t e = 0; e < experts; ++e) {
    shares[e] = 1.0 / std::pow(static_cast<double>(rank_of[e] + 1), params.zipf_s) / sum;
  }
  return shares;
}

ExpertLoad route_tokens(std::uint64_t assignments, std::uint64_t experts, const RoutingParams& params) {
  ExpertLoad load;
  const auto shares = expert_shares(experts, params);
  load.tokens.assign(experts, 0);
  std::vector<std::pair<double, std::uint64_t>> remainders;
  std::uint64_t given = 0;
  for (std::uint64_t e = 0; e < experts; ++e) {
    const double exact = shares[e] * static_cast<double>(assignments);
    load.tokens[e] = static_cast<std::uint64_t>(std::floor(exact));
    given += load.tokens[e];
    remainders.emplace_back(exact - std::floor(exact), e);
  }
  // Largest remainder first; ties to the lower expert index.
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; given < assignments && i < remainders.size(); ++i, ++given) {
    ++load.tokens[remainders[i].second];
  }
  if (params.capacity_factor > 0 && experts > 0) {
    load.capacity = static_cast<std::uint64_t>(
        std::ceil(params.capacity_factor * static_cast<double>(assignments) / static_cast<double>(experts)));
    for (auto& tokens : load.tokens) {
      if (tokens > load.capacity) {
        load.dropped += tokens - load.capacity;
        tokens = load.capacity;
      }
    }
  }
  return load;
}

std::uint64_t rank_tokens(const ExpertLoad& load, std::uint64_t ranks, std::uint64_t rank) {
  const std::uint64_t experts = load.tokens.size();
  std::uint64_t total = 0;
  for (std::uint64_t e = rank * experts / ranks; e < (rank + 1) * experts / ranks; ++e) total += load.tokens[e];
  return total;
}

std::uint64_t most_loaded_rank(const ExpertLoad& load, std::uint64_t ranks) {
  std::uint64_t best = 0, best_tokens = 0;
  for (std::uint64_t r = 0; r < ranks; ++r) {
    const auto tokens = rank_tokens(load, ranks, r);
    if (tokens > best_tokens) {
      best = r;
      best_tokens = tokens;
    }
  }
  return best;
}

}  // namespace roofsim
