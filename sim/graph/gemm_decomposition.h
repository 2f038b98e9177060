#pragma once
// How a GEMM's k-steps (its MAC iterations) are dealt to tiles, chosen by the predicted time of each candidate as
// CUTLASS's stream-K heuristics choose (Osama, Merrill, Cecka, Garland and Satish, "Stream-K: Work-centric Parallel
// Decomposition for Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023):
//   data-parallel  one tile per output tile, all of its k-steps: waves of whole tiles, the last may idle units
//   split-k        each output tile's k-steps split into s even slices, one tile each
//   stream-k       all k-steps dealt evenly to units x j tiles, j <= occupancy (a tile may span output tiles)
//   hybrid         the paper's "data-parallel + stream-K": the full waves run data-parallel and the output tiles of
//                  the partial wave (and of the last full wave, "two-tile") are dealt evenly to one stream-K tile per
//                  unit
// A tile's segment (its k-steps of one output tile) that ends inside the output tile leaves fp32 partial sums in a
// workspace; the tile whose segment ends the output tile reads its peers' partials and adds them (the fix-up).
//
// The prediction is a small mechanism of the device's parameters and the tile counts, without a fitted constant:
//   compute    the busiest unit's k-steps x the time of one k-step at the unit's engine rate. The tiles resident on a
//              unit share its engine, so a unit's time is the sum of its tiles' k-steps. The tiles that fit the
//              slots (units x occupancy) start together and the dispatcher spreads them, ceil(tiles / units) to a
//              unit (waves); tiles beyond the slots take slots as they free, and a round of them may put
//              `occupancy` tiles on one unit
//   on chip    every k-step's A and B blocks, C, and the partial sums written and read back through the shared SRAM
//              levels at their bandwidth, and the busiest unit's blocks through its own levels
//   memory     the operands once plus the partial sums (written through, and read back when they are not cached) at
//              the memory bandwidth, or at what the busy units keep in flight over the memory latency (Little's law):
//              each resident tile the k-steps its pipeline loads ahead, up to the unit's outstanding requests
//   reduction  the fix-up with the most peers reads their partials after its own k-steps, at what one unit keeps in
//              flight over the latency of the level holding them
//   predicted = max(compute, on chip, memory) + reduction: the first three overlap, the fix-up's reads follow the
//   tile's last k-step.
// Plain C++ without SystemC (tests/unit/lowering/gemm_decomposition_test.cpp).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/core/units.h"

namespace roofsim {

enum class GemmDecompositionKind { data_parallel, split_k, stream_k, hybrid };
// "data-parallel", "split-k", "stream-k", "hybrid".
[[nodiscard]] std::string_view to_string(GemmDecompositionKind kind);
// The kind a workload names; none for "auto" (or any other name).
[[nodiscard]] std::optional<GemmDecompositionKind> gemm_decomposition_kind(std::string_view name);

// Tiles [0, stream_k_tiles) share the k-steps of the first stream_k_output_tiles evenly (shares differ by at most one
// k-step), tile t running the region's k-steps [t I / S, (t + 1) I / S); the data_parallel_tiles after them each run
// one of the remaining output tiles whole. The stream-K tiles go first, as CUTLASS dispatches them: they then share
// the units with the data-parallel tiles instead of running alone in a last wave.
struct GemmDecomposition {
  GemmDecompositionKind kind = GemmDecompositionKind::data_parallel;
  std::uint64_t stream_k_tiles = 0;
  std::uint64_t stream_k_output_tiles = 0;
  std::uint64_t data_parallel_tiles = 0;

  [[nodiscard]] std::uint64_t tiles() const { return stream_k_tiles + data_parallel_tiles; }
};

// What the cost model needs of a GEMM.
struct GemmWork {
  std::uint64_t output_tiles = 0;
  std::uint64_t k_steps = 0;     // per output tile
  Flops step_flops = 0;          // one k-step of one tile, as the engine executes it
  Bytes streamed_bytes = 0;      // the A and B blocks of all k-steps of all output tiles
  Bytes operand_bytes = 0;       // A, B and C once: what memory moves at least
  Bytes output_bytes = 0;        // C
  Bytes partial_tile_bytes = 0;  // the partial sums of one output tile (fp32)
  std::uint32_t stages = 2;      // k-steps a tile keeps loaded or loading (pipeline_stages in lowering.h)
};

// The device figures the prediction uses; a rate of 0 is a resource that does not bind.
struct GemmMachine {
  std::uint64_t units = 1;
  FlopsPerSecond unit_flops_per_s = 0;         // the unit's engine for the op's type
  BytesPerSecond unit_sram_bytes_per_s = 0;    // the slowest unit-scope level, per unit
  BytesPerSecond shared_sram_bytes_per_s = 0;  // the slowest device-scope on-chip level
  Seconds shared_sram_latency_s = 0;           // of the outermost device-scope level, where partials are read back
  BytesPerSecond memory_bytes_per_s = 0;       // DRAM, or the outermost on-chip level without DRAM
  Seconds memory_latency_s = 0;
  Bytes unit_bytes_in_flight = 0;  // outstanding requests x request bytes of one unit; 0: no limit
  std::uint64_t occupancy = 1;     // resident tiles per unit, sharing its engines

  // From a device file, for an op run on `engine` at `dtype` (a null engine computes in zero time).
  [[nodiscard]] static GemmMachine of(const HardwareParams& hw, const EngineParams* engine, DataType dtype);
};

struct GemmCost {
  std::uint64_t busiest_unit_steps = 0;
  std::uint64_t partial_tiles = 0;  // partial tiles written (and read back)
  std::uint64_t max_peers = 0;      // partial tiles the busiest fix-up reads
  Seconds compute_s = 0;
  Seconds on_chip_s = 0;
  Seconds memory_s = 0;
  Seconds reduction_s = 0;
  Seconds predicted_s = 0;
};

// A split tile keeps at least this many k-steps: a pipeline deep enough to hide the memory latency behind the engine,
// and partial sums few against the operands it streams (CUTLASS keeps at least 2).
inline constexpr std::uint64_t kMinSplitKSteps = 4;

[[nodiscard]] GemmCost predict_gemm_cost(const GemmDecomposition& decomposition, const GemmWork& work,
                                         const GemmMachine& machine);

// Data-parallel first. Fewer output tiles than units: stream-K over units x j tiles (j <= occupancy) and split-K into
// s slices (s x output tiles <= units x occupancy). Full waves and a partial one: the paper's hybrids, the partial
// wave's output tiles ("one-tile") or those of the partial and the last full wave ("two-tile", stream-K over all
// output tiles when there is one full wave) dealt to one stream-K tile per unit, the rest data-parallel. Split tiles
// keep kMinSplitKSteps k-steps or more.
[[nodiscard]] std::vector<GemmDecomposition> gemm_decomposition_candidates(const GemmWork& work,
                                                                           const GemmMachine& machine);

// The candidate with the lowest predicted time, of kind `only` when given (data-parallel when no candidate is of
// that kind); among equal predictions the earlier candidate.
[[nodiscard]] GemmDecomposition choose_gemm_decomposition(const GemmWork& work, const GemmMachine& machine,
                                                          std::optional<GemmDecompositionKind> only = std::nullopt);

}  // namespace roofsim
