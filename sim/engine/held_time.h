#pragma once
// A fast-forwarded op's simulated time against its own time, plain C++. The waves a fast-forward skips pass as a hold
// after the op's last tile (sim/engine/op_replay.h), while in the op they stand for each skip's waves ran where it
// skipped and the simulated tiles after it ran after them. A record measured on the simulated time would place the
// simulated tail (a partial last wave drawing little power) before the skipped waves; a replay that follows the
// record's clock course and power profile would then draw that tail mid-op, and the governor, which reacts to it,
// would step the clock in the wrong place: on MI300X a replayed GEMM left the clock one state low at its end, and the
// residual add after it ran 37 % long. So the record's clock course and power profile are put on the op's own time.
#include <vector>

#include "models/kernel/paced_progress.h"
#include "models/kernel/time_fs.h"
#include "models/power/clock_scaled_work.h"

namespace roofsim {

// One skip: at `skip_fs` of the simulation (from the op's start) the skipped waves would have run for `hold_fs`.
struct HeldSkip {
  TimeFs skip_fs = 0;
  TimeFs hold_fs = 0;
};

class HeldTime {
 public:
  // A stretch of simulated time, [sim_fs, sim_fs + length_fs), and where it lies on the op's own time.
  struct Piece {
    TimeFs sim_fs = 0;
    TimeFs own_fs = 0;
    TimeFs length_fs = 0;
  };

  // `skips` in the order they were taken (their skip_fs not decreasing); the hold passes them in that order from
  // `hold_start_fs` (from the op's start, after its last tile and its skip times); the op ends at `end_fs`, at least
  // the hold's end (what comes after the hold lies at the same time on both).
  HeldTime(const std::vector<HeldSkip>& skips, TimeFs hold_start_fs, TimeFs end_fs);

  // The op's time cut into pieces, in own-time order; they tile [0, end_fs) on both times.
  [[nodiscard]] const std::vector<Piece>& pieces() const { return pieces_; }
  // A clock course on the simulated time (segments from the op's start) on the op's own time; adjacent segments at
  // one clock are merged.
  [[nodiscard]] std::vector<ClockSegment> own_course(const std::vector<ClockSegment>& simulated) const;
  // A cumulative profile on the simulated time (knots from the op's start, done from 0 to 1, linear between knots)
  // on the op's own time: each piece's share moves with it.
  [[nodiscard]] std::vector<ProgressKnot> own_profile(const std::vector<ProgressKnot>& simulated) const;

 private:
  std::vector<Piece> pieces_;
};

}  // namespace roofsim
