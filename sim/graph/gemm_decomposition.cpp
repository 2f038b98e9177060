#include "sim/graph/gemm_decomposition.h"

#include <algorithm>

namespace roofsim {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

Seconds time_s(double amount, double rate) {
  return rate > 0 ? amount / rate : 0;
}

// The stream-K region of a decomposition: I k-steps dealt to S tiles, tile t running [t I / S, (t + 1) I / S).
struct StreamKRegion {
  std::uint64_t tiles = 0;       // S
  std::uint64_t iterations = 0;  // I

  [[nodiscard]] std::uint64_t end(std::uint64_t tile) const { return (tile + 1) * iterations / tiles; }
  // The tile that runs the region's k-step `step`: the largest t with t I / S <= step.
  [[nodiscard]] std::uint64_t tile_of(std::uint64_t step) const { return ceil_div((step + 1) * tiles, iterations) - 1; }
};

}  // namespace

std::string_view to_string(GemmDecompositionKind kind) {
  switch (kind) {
    case GemmDecompositionKind::data_parallel: return "data-parallel";
    case GemmDecompositionKind::split_k: return "split-k";
    case GemmDecompositionKind::stream_k: return "stream-k";
    case GemmDecompositionKind::hybrid: return "hybrid";
  }
  return "data-parallel";
}

std::optional<GemmDecompositionKind> gemm_decomposition_kind(std::string_view name) {
  for (const auto kind : {GemmDecompositionKind::data_parallel, GemmDecompositionKind::split_k,
                          GemmDecompositionKind::stream_k, GemmDecompositionKind::hybrid}) {
    if (name == to_string(kind)) return kind;
  }
  return std::nullopt;
}

GemmMachine GemmMachine::of(const HardwareParams& hw, const EngineParams* engine, DataType dtype) {
  GemmMachine machine;
  machine.units = std::max<std::uint64_t>(hw.compute.units, 1);
  machine.occupancy = std::max<std::uint64_t>(hw.compute.occupancy, 1);
  if (engine != nullptr && engine->supports(dtype)) {
    machine.unit_flops_per_s = engine->flops_per_cycle.at(dtype) * engine->clock_hz;
  }
  // Every chunk passes every SRAM level (memory_system.h), so the slowest of each scope binds.
  const auto slowest = [](BytesPerSecond current, BytesPerSecond rate) {
    return current > 0 ? std::min(current, rate) : rate;
  };
  for (const auto& level : hw.levels) {
    if (level.scope == LevelScope::unit) {
      machine.unit_sram_bytes_per_s = slowest(machine.unit_sram_bytes_per_s, level.bytes_per_cycle * level.clock_hz);
    } else {
      machine.shared_sram_bytes_per_s = slowest(machine.shared_sram_bytes_per_s, level.bandwidth_bytes_per_s);
      machine.shared_sram_latency_s = level.latency_s;
    }
  }
  if (hw.dram) {
    machine.memory_bytes_per_s = hw.dram->peak_bandwidth_bytes_per_s();
    machine.memory_latency_s = hw.dram->latency_s;
  } else if (!hw.levels.empty()) {
    machine.memory_bytes_per_s = hw.levels.back().bandwidth_bytes_per_s;
    machine.memory_latency_s = hw.levels.back().latency_s;
  }
  machine.unit_bytes_in_flight = hw.compute.outstanding_requests * hw.compute.request_bytes;
  return machine;
}

GemmCost predict_gemm_cost(const GemmDecomposition& decomposition, const GemmWork& work, const GemmMachine& machine) {
  GemmCost cost;
  const std::uint64_t units = std::max<std::uint64_t>(machine.units, 1);
  const std::uint64_t k_steps = std::max<std::uint64_t>(work.k_steps, 1);
  const StreamKRegion region{decomposition.stream_k_tiles, decomposition.stream_k_output_tiles * k_steps};

  // The tiles that fit the units' slots start at once, the dispatcher spreading them over the units; the busiest unit
  // runs ceil(tiles / units) of them. Tiles beyond the slots take slots as they free: a unit's resident tiles end
  // close together, so it may take `occupancy` new ones before the others free theirs, and each round of refills can
  // cost the busiest unit `occupancy` tiles.
  const std::uint64_t slots = units * std::max<std::uint64_t>(machine.occupancy, 1);
  const std::uint64_t dp_tiles = decomposition.data_parallel_tiles;
  if (region.tiles > 0) {
    cost.busiest_unit_steps = ceil_div(region.tiles, units) * ceil_div(region.iterations, region.tiles);
  }
  cost.busiest_unit_steps += region.tiles + dp_tiles <= slots ? ceil_div(dp_tiles, units) * k_steps
                                                              : ceil_div(dp_tiles, slots) * (slots / units) * k_steps;
  cost.compute_s = time_s(static_cast<double>(cost.busiest_unit_steps) * static_cast<double>(work.step_flops),
                          machine.unit_flops_per_s);

  // Each stream-K tile whose range does not end on an output tile's last k-step leaves one partial tile; the fix-up
  // of an output tile reads those of every tile before the one that ends it.
  std::uint64_t fix_ups = 0;
  if (region.tiles > 0 && region.iterations > 0) {
    for (std::uint64_t tile = 0; tile < region.tiles; ++tile) {
      if (region.end(tile) % k_steps != 0) ++cost.partial_tiles;
    }
    for (std::uint64_t o = 0; o < decomposition.stream_k_output_tiles; ++o) {
      const std::uint64_t peers = region.tile_of((o + 1) * k_steps - 1) - region.tile_of(o * k_steps);
      cost.max_peers = std::max(cost.max_peers, peers);
      if (peers > 0) ++fix_ups;
    }
  }
  const double partial_bytes = static_cast<double>(cost.partial_tiles * work.partial_tile_bytes);

  const std::uint64_t iterations = work.output_tiles * k_steps;
  const double step_bytes =
      iterations > 0 ? static_cast<double>(work.streamed_bytes) / static_cast<double>(iterations) : 0;
  cost.on_chip_s =
      std::max(time_s(static_cast<double>(work.streamed_bytes + work.output_bytes) + 2 * partial_bytes,
                      machine.shared_sram_bytes_per_s),
               time_s(static_cast<double>(cost.busiest_unit_steps) * step_bytes, machine.unit_sram_bytes_per_s));

  // A tile runs its segments last output tile first (lowering.cpp), so when split tiles run an output tile's worth of
  // k-steps or more, a fix-up comes after its peers wrote their partials, which the shared level then holds. Shorter
  // split tiles run beside their peers: the partials are not written yet when the fix-up reads them (the model does
  // not hold a fix-up until its peers are done), and they come from memory.
  const bool partials_cached = machine.shared_sram_bytes_per_s > 0 && region.iterations >= region.tiles * k_steps;

  BytesPerSecond memory_rate = machine.memory_bytes_per_s;
  if (machine.memory_latency_s > 0) {
    // A busy unit's resident tiles each keep the k-steps after the one computing in flight.
    const std::uint64_t tiles = decomposition.tiles();
    const std::uint64_t resident = std::min(ceil_div(tiles, units), std::max<std::uint64_t>(machine.occupancy, 1));
    double unit_in_flight = static_cast<double>(resident * (std::max<std::uint32_t>(work.stages, 2) - 1)) * step_bytes;
    if (machine.unit_bytes_in_flight > 0) {
      unit_in_flight = std::min(unit_in_flight, static_cast<double>(machine.unit_bytes_in_flight));
    }
    const double busy_units = static_cast<double>(std::min(units, tiles));
    if (unit_in_flight > 0) memory_rate = std::min(memory_rate, busy_units * unit_in_flight / machine.memory_latency_s);
  }
  cost.memory_s =
      time_s(static_cast<double>(work.operand_bytes) + (partials_cached ? 1 : 2) * partial_bytes, memory_rate);

  // The fix-up with the most peers reads their partials after its own k-steps, at what the unit keeps in flight over
  // the latency of where they are (else at the level's bandwidth shared by the fix-ups).
  if (cost.max_peers > 0) {
    const BytesPerSecond level_rate = partials_cached ? machine.shared_sram_bytes_per_s : machine.memory_bytes_per_s;
    const Seconds latency_s = partials_cached ? machine.shared_sram_latency_s : machine.memory_latency_s;
    const BytesPerSecond unit_rate =
        latency_s > 0 && machine.unit_bytes_in_flight > 0
            ? static_cast<double>(machine.unit_bytes_in_flight) / latency_s
            : level_rate / static_cast<double>(std::max<std::uint64_t>(std::min(units, fix_ups), 1));
    cost.reduction_s = time_s(static_cast<double>(cost.max_peers * work.partial_tile_bytes), unit_rate);
  }
  cost.predicted_s = std::max({cost.compute_s, cost.on_chip_s, cost.memory_s}) + cost.reduction_s;
  return cost;
}

std::vector<GemmDecomposition> gemm_decomposition_candidates(const GemmWork& work, const GemmMachine& machine) {
  using Kind = GemmDecompositionKind;
  const std::uint64_t units = std::max<std::uint64_t>(machine.units, 1);
  const std::uint64_t occupancy = std::max<std::uint64_t>(machine.occupancy, 1);
  const std::uint64_t tiles = work.output_tiles, k_steps = work.k_steps;
  std::vector<GemmDecomposition> candidates{{Kind::data_parallel, 0, 0, tiles}};
  if (tiles == 0 || k_steps == 0) return candidates;

  // Split tiles keep kMinSplitKSteps k-steps or more.
  const auto split_limit = [k_steps](std::uint64_t output_tiles) { return output_tiles * k_steps / kMinSplitKSteps; };
  const std::uint64_t full_waves = tiles / units, tail = tiles % units;
  if (full_waves == 0) {
    // Fewer output tiles than units: all of them split, over units x j tiles or s slices each.
    std::uint64_t previous = tiles;
    for (std::uint64_t j = 1; j <= occupancy; ++j) {
      const std::uint64_t split_tiles = std::min(units * j, split_limit(tiles));
      if (split_tiles <= previous) continue;
      candidates.push_back({Kind::stream_k, split_tiles, tiles, 0});
      previous = split_tiles;
    }
    for (std::uint64_t s = 2; s * tiles <= units * occupancy && k_steps / s >= kMinSplitKSteps; ++s) {
      candidates.push_back({Kind::split_k, s * tiles, tiles, 0});
    }
    return candidates;
  }
  if (tail == 0) return candidates;
  // Full waves and a partial one: the paper's hybrids keep the full waves data-parallel (their tiles share operand
  // panels in the cache) and deal the partial wave's output tiles to one stream-K tile per unit ("one-tile"), or
  // those of the partial and the last full wave ("two-tile", whose stream-K tiles run one to two output tiles).
  const std::uint64_t one_tile = std::min(units, split_limit(tail));
  if (one_tile > tail) candidates.push_back({Kind::hybrid, one_tile, tail, full_waves * units});
  candidates.push_back({full_waves > 1 ? Kind::hybrid : Kind::stream_k, units, tail + units, (full_waves - 1) * units});
  return candidates;
}

GemmDecomposition choose_gemm_decomposition(const GemmWork& work, const GemmMachine& machine,
                                            std::optional<GemmDecompositionKind> only) {
  const auto candidates = gemm_decomposition_candidates(work, machine);
  const GemmDecomposition* best = nullptr;
  Seconds best_s = 0;
  for (const auto& candidate : candidates) {
    if (only && candidate.kind != *only) continue;
    const Seconds predicted_s = predict_gemm_cost(candidate, work, machine).predicted_s;
    if (best == nullptr || predicted_s < best_s) {
      best = &candidate;
      best_s = predicted_s;
    }
  }
  return best != nullptr ? *best : candidates.front();
}

}  // namespace roofsim
