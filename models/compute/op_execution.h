#pragma once
// What the compute units share about one op while it runs: its tiles, the rate of its engine, and the counters
// they add to. Plain data; the engine (sim/engine) turns it into per-op statistics at the end of the run.
#include <cstdint>
#include <vector>

#include "models/kernel/tile_source.h"
#include "models/kernel/time_fs.h"

namespace roofsim {

// One unit's time with at least one tile of the op resident.
struct UnitResidency {
  std::uint32_t resident = 0;  // tiles of the op on the unit now
  TimeFs since_fs = 0;         // when `resident` last went from 0 to 1
  TimeFs resident_fs = 0;      // total time with resident > 0
  TimeFs first_fs = kNever;    // first tile start
  TimeFs last_fs = 0;          // last tile end
  TimeFs busy_fs = 0;          // engine time spent on the op's steps
};

struct OpExecution {
  const TileSource* lowering = nullptr;  // the op's lowering into tiles; null: not simulated
  FlopsPerSecond unit_rate = 0;          // FLOP/s of the op's engine on one unit for its data type
  std::size_t engine = 0;                // index of that engine in a unit
  std::uint32_t stages = 2;              // k-steps a tile may have loaded or loading at once (>= 2)

  Flops executed_flops = 0;
  Flops useful_flops = 0;
  std::uint64_t tiles_done = 0;
  std::vector<Bytes> bytes;  // per memory level (MemorySystem::level_names order)
  TimeFs latency_fs = 0;     // summed over read chunks: unloaded time and time held by the request limit
  TimeFs queueing_fs = 0;    // summed over read chunks: time beyond unloaded, waiting for ports/channels
  // Engine time on the op's steps at each DVFS state of the compute clock (ComputeClock::state), summed over
  // units; a step re-timed by a clock change moves its remaining time to the new state. Empty without a clock.
  std::vector<TimeFs> busy_at_state_fs;
  std::vector<UnitResidency> units;
};

}  // namespace roofsim
