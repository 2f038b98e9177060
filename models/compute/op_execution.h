#pragma once
// What the compute units share about one op while it runs: its tiles, which engine runs each kind of its work and at
// what rate, its kernel schedule, and the counters they add to. Plain data; the engine (sim/engine) turns it into
// per-op statistics at the end of the run.
#include <array>
#include <cstdint>
#include <vector>

#include "models/compute/compute_params.h"
#include "models/kernel/paced_amount.h"
#include "models/kernel/paced_progress.h"
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
  TimeFs busy_fs = 0;          // time of the op's primary engine spent on the op's steps
  // Time the primary engine stood idle while a phase of the op on another engine (by index) held up the phase that
  // would use it next: what the matrix engine waited on the vector or special-function engine.
  std::array<TimeFs, kMaxUnitEngines> waited_fs{};
};

// The kinds of work of a phase (PhaseWork, models/kernel/tile.h), in its order.
inline constexpr std::size_t kWorkKinds = 6;

// The waves of an op that a steady-state fast-forward skipped (sim/engine/wave_fast_forward.h): their counters are
// booked into the op's at the skip, and their time is a hold after the op's last simulated tile (DispatchPolicy). A
// reader of activity over time (the power domain) counts them as work still to come until the hold begins and spends
// them at an even pace over the hold, as the compute units' StepWorkPacing spends a simulated step's work over its
// phases, so a governor window sees the skipped waves' power where their time is.
struct SkippedWaves {
  TimeFs hold_fs = 0;  // none: 0; summed over the op's skips, as everything below
  double flops = 0;
  std::array<double, kWorkKinds - 1> ops{};  // lane operations (PhaseWork order after flops)
  std::vector<double> bytes;                 // per memory level
  // DRAM commands charged to the op: ACT, PRE, RD, WR bursts, all-bank and per-bank refreshes.
  std::array<double, 6> dram_commands{};
  double unit_fs = 0;  // the units' time holding the op's tiles, summed over units
};

struct OpExecution {
  const TileSource* lowering = nullptr;  // the op's lowering into tiles; null: not simulated
  // Per kind of work (PhaseWork order: flops, vector_fma, vector_alu, exp2, reciprocal, rsqrt): the engine (index in
  // a unit) that runs it and its rate on one unit at the nominal clock, FLOP/s or operations/s.
  std::array<std::uint8_t, kWorkKinds> work_engine{};
  std::array<double, kWorkKinds> work_rate{};
  std::size_t engine = 0;  // the primary engine: the one whose time is the op's busy time (its binding engine)
  KernelSchedule schedule = KernelSchedule::serial;
  std::uint32_t stages = 2;  // k-steps a tile may have loaded or loading at once (>= 2)

  PhaseWork executed_work;  // summed over the steps run
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
  // A memoized replay (models/compute/op_replay_hook.h) books the op's counters at once and runs no tile; readers of
  // activity over time (the power domain) spread them over [replay_start_fs, replay_end_fs).
  TimeFs replay_start_fs = kNever;
  TimeFs replay_end_fs = kNever;
  // A replay whose pace follows the live compute clock (sim/engine/op_replay.h) spends them along these knots, from
  // its start to its end; empty: at an even pace over the interval.
  std::vector<ProgressKnot> replay_progress;
  // Its units' time holding its tiles (`units`), which a re-timing stretches with its end, is spent along the same
  // progress; what was spent by the last re-timing stays spent (replay_units_spent_fs below).
  double replay_units_spent_fs = 0;    // by the last re-timing
  double replay_units_left_share = 1;  // of the progress still to come at the last re-timing
  SkippedWaves skipped;                // none: hold_fs == 0
};

// The part of a replay's `amount` still to come at `now`: spent along replay_progress when its pace follows the live
// clock, else at an even pace over [replay_start_fs, replay_end_fs).
[[nodiscard]] inline double replay_left(const OpExecution& execution, double amount, TimeFs now) {
  if (!execution.replay_progress.empty()) return progress_left(execution.replay_progress, amount, now);
  return PacedAmount{amount, execution.replay_start_fs, execution.replay_end_fs}.left(now);
}

// The part of a replay's units' time `total_fs` spent by `now`: what was spent by the last re-timing, and the rest of
// `total_fs` along the progress since. Spent along the whole progress at each new total instead, a step down of the
// clock would book at once the stretch of the part already done (and a step up take it back by booking nothing
// until the progress caught up): a power reading a few per cent high after each step down, which under a cap steps
// the clock down again.
[[nodiscard]] inline double replay_units_spent_fs(const OpExecution& execution, double total_fs, TimeFs now) {
  if (execution.replay_units_left_share <= 0) return total_fs;
  return total_fs -
         replay_left(execution, total_fs - execution.replay_units_spent_fs, now) / execution.replay_units_left_share;
}

}  // namespace roofsim
