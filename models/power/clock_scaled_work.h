#pragma once
// A recorded op's time as a function of the compute clock it runs at, plain C++: what a memoized replay
// (sim/engine/op_replay.h) needs to run an op for as long as it would take at the clock the live governor applies,
// rather than for as long as its twin took at the clock of its own time.
//
// The model. The only thing the compute domain's clock times is the engines' steps (models/kernel/compute_clock.h:
// SRAM levels, the DRAM and the links keep their own clocks). The op ends when its longest-resident unit does (the
// units with less of its work, or none, wait on it), so that unit's time, read from the op's unit accounting as the
// run report splits it (UnitResidency, sim/engine/engine.cpp), sets how the op's time follows the clock:
// - compute, share k: an engine of the unit busy on the op's steps, or the primary engine held up by another engine
//   of the same domain (busy_fs + waited_fs). Its cycles are fixed, so its time follows 1/f.
// - memory stall (the unit holds tiles of the op and its engines wait on data), split as the op's read chunks split
//   their time between unloaded latency and queueing for ports and channels (OpExecution::latency_fs, queueing_fs):
//   - latency, share l: loads nothing overlaps (a tile's first k-step), whose time adds to the compute's;
//   - bandwidth, share b: the memory side binds; the k-steps overlap their loads with compute (double buffering),
//     so a slower clock stretches the compute into this slack and a faster one gains nothing.
// - idle, share o = 1 - k - l - b: time the unit holds none of the op's tiles, which ends when the units still
//   working end, and so follows the clock as their compute does (0 for the longest-resident unit's split).
// Which of the compute overlaps a binding memory side is not recorded; the stall's bandwidth share phi = b / (l + b)
// (0 without a stall) stands for it. A recorded stretch of dt at clock f_rec, run at clock f (r = f_rec / f), takes
// dt x s(r), with
//   s(r) = o r + (1 - phi) (k r + l + b) + phi max(k r + l, k + l + b),
// so s(1) = 1 exactly, a compute-bound op (l = b = 0) takes r times as long, a memory-bound one (k = o = 0) as long,
// an op whose stall is all unloaded latency adds it to compute that follows the clock, and one whose stall is all
// queueing absorbs a slower clock into it until its compute fills it and gains nothing from a faster one. The
// recorded clock course is a list of segments (ClockSegment); each is stretched at its own f_rec, so an op recorded
// across several DVFS states and replayed across others maps each recorded stretch to the clock in force when the
// replay reaches it (ReplayProgress).
//
// Why it stays within bounds. The model is exact when the clock is the recorded one (s = 1), and first-order in the
// clock difference otherwise: its error is at most the share of time whose boundness the split misjudges times
// |r - 1|. Under a power cap the live governor, which sees the replay draw what the op would draw (its counters
// spent along the recorded power profile, at the replay's pace), leads the instances of an op through clock courses a
// DVFS step or two apart (15 MHz, 0.8% each on H100), which bounds the error at a fraction of that. A signature is
// replayed only once a second instance, simulated at its own clock course, took within 1% of what this model predicts
// from the first (OpMemoStore), so an op whose time the split does not describe stays simulated.
#include <cstddef>
#include <vector>

#include "models/kernel/paced_progress.h"
#include "models/kernel/time_fs.h"
#include "sim/core/units.h"

namespace roofsim {

// A stretch of an op's time at one compute clock.
struct ClockSegment {
  TimeFs duration_fs = 0;
  Hertz clock_hz = 0;
};

// The units' time of an op split as above, each share in [0, 1], summing to at most 1.
struct UnitTimeShares {
  double compute = 0;    // k
  double latency = 0;    // l
  double bandwidth = 0;  // b
};

// `busy_fs` (engine time on the op's steps and waits on the domain's other engines, summed over units) and
// `resident_fs` (time holding tiles, summed over units, at least busy_fs) over `units` x `duration_fs`; the stall
// (resident - busy) is latency in the share `latency_share` (0 to 1), bandwidth in the rest.
[[nodiscard]] UnitTimeShares unit_time_shares(double busy_fs, double resident_fs, double latency_share,
                                              std::size_t units, TimeFs duration_fs);

class ClockScaledWork {
 public:
  ClockScaledWork() = default;
  // `segments`: the recorded course, in order (durations sum to the op's duration).
  ClockScaledWork(std::vector<ClockSegment> segments, UnitTimeShares shares);

  [[nodiscard]] const std::vector<ClockSegment>& segments() const { return segments_; }
  [[nodiscard]] const UnitTimeShares& shares() const { return shares_; }
  [[nodiscard]] TimeFs duration_fs() const { return duration_fs_; }
  // Wall time per recorded fs of segment `i` at `clock_hz`: s(r) above, exactly 1 at the recorded clock.
  [[nodiscard]] double stretch(std::size_t i, Hertz clock_hz) const;
  // How long the op takes when the clock follows `course` from its start (the last segment's clock holds after it;
  // an empty course: the recorded clocks).
  [[nodiscard]] TimeFs duration_under(const std::vector<ClockSegment>& course) const;

 private:
  std::vector<ClockSegment> segments_;
  UnitTimeShares shares_;
  TimeFs duration_fs_ = 0;
};

// A replay's progress through its record while the clock moves under it.
class ReplayProgress {
 public:
  ReplayProgress() = default;
  // `work` must outlive the progress.
  explicit ReplayProgress(const ClockScaledWork& work) : work_(&work) {}

  // `elapsed_fs` of wall time passed at `clock_hz`.
  void advance(TimeFs elapsed_fs, Hertz clock_hz);
  // Wall time to the end with the clock held at `clock_hz`, rounded once.
  [[nodiscard]] TimeFs remaining_fs(Hertz clock_hz) const;
  // Recorded time done, in fs.
  [[nodiscard]] double done_fs() const { return before_fs_ + into_fs_; }
  // True when every recorded stretch still to come takes as long at `clock_hz` as it was recorded.
  [[nodiscard]] bool as_recorded(Hertz clock_hz) const;
  // Wall time from here until `recorded_fs` of recorded time is done (at least done_fs()) with the clock held at
  // `clock_hz`, unrounded.
  [[nodiscard]] double wall_to(double recorded_fs, Hertz clock_hz) const;
  // The knots from `now_fs` on with the clock held at `clock_hz`: now, each recorded segment's end, each knot of
  // `profile` ahead, and the end. A knot's share is `profile` at its recorded time (`profile`'s at_fs are recorded
  // fs from the op's start, its shares rising to 1; empty: recorded time over the op's duration).
  void knots_ahead(TimeFs now_fs, Hertz clock_hz, const std::vector<ProgressKnot>& profile,
                   std::vector<ProgressKnot>& into) const;

 private:
  const ClockScaledWork* work_ = nullptr;
  std::size_t segment_ = 0;
  double into_fs_ = 0;    // recorded time done in segment_
  double before_fs_ = 0;  // recorded time of the segments before segment_
};

}  // namespace roofsim
