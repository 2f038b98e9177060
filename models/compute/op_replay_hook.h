#pragma once
// Memoized op execution as the dispatcher sees it: when an op's launch latency is over and before its first tile,
// the dispatcher asks the hook whether a recorded twin stands in for it (same signature: sim/engine/op_replay.h). A
// replayed op runs no tile: the hook books its counters and the dispatcher ends it after the recorded duration.
// Ops that are simulated are reported when they end, so that the hook may record them.
#include <cstddef>
#include <cstdint>

#include "models/kernel/time_fs.h"

namespace roofsim {

class OpReplayHook {
 public:
  // `op` may start its tiles at `now`: the end time of its replay, or kNever to simulate it.
  [[nodiscard]] virtual TimeFs op_starting(std::size_t op, TimeFs now) = 0;
  // When a replayed op (op_starting returned its end) hands out its last tile: its record's moment of that, at the
  // replay's pace. The ops after it in program order wait for it, as they would for its tiles.
  [[nodiscard]] virtual TimeFs tiles_out_fs(std::size_t op) const = 0;
  // A simulated op ended at `now`.
  virtual void op_finished(std::size_t op, TimeFs now) = 0;
  // Steady-state fast-forward: tile `tile` of `op`, the first of a wave, is handed out at `now`. The tiles to skip
  // from it on, it included (whole waves; their counters are booked by the hook; the dispatcher hands out the tile
  // after them in its place, DispatchPolicy::skip_tiles), and the time they take, which the op's end waits out after
  // its last simulated tile.
  struct WaveSkip {
    std::uint64_t tiles = 0;
    TimeFs hold_fs = 0;
  };
  [[nodiscard]] virtual WaveSkip wave_boundary(std::size_t op, std::uint64_t tile, TimeFs now) = 0;
  // Steady-state fast-forward inside tiles: a step boundary of `op` (TileListener::step_boundary) at `now`. The time
  // of the steps the hook skipped in every slot of the op (ComputeUnit::skip_steps; their counters booked by the hook),
  // which the op's end waits out after its last simulated tile; 0: none skipped.
  [[nodiscard]] virtual TimeFs step_boundary(std::size_t op, TimeFs now) = 0;
  // A fast-forwarded op's last tile and write are done at `now`: its hold (the skipped waves' time) begins.
  virtual void hold_started(std::size_t op, TimeFs now) = 0;

 protected:
  ~OpReplayHook() = default;
};

}  // namespace roofsim
