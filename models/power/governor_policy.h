#pragma once
// The power-cap governor's policy, plain C++: it measures average power over a window and, after a
// reaction delay, moves the compute domain one DVFS state down while the window was over the cap, and one state up
// only when the power predicted at the next state stays under the cap. Predicting before stepping up is what makes
// it settle: on a steady load it stops at the highest state that fits instead of hunting between two.
//
// Down fast, up on evidence: a step down acts on one window over the cap; a step up is judged on the mean of the last
// `up_windows` windows at the current state (and waits for that many). One window's power carries the quantization of
// work counted in whole steps (a compute step's energy is counted when it starts), a few per cent on a GPU whose units
// run in lock-step; the mean of k back-to-back windows carries the same absolute error over k times the time, so a
// state just over the cap is no longer mistaken for one that fits and the governor does not hunt around it.
//
// Schedule: windows run back to back from time 0. When a window ends with a decision, no window is judged until the
// change takes effect (reaction delay later); the next window starts then, so every judged window ran at one state.
// The thin SystemC module (governor_module.h) wakes at next_wake_fs() and nowhere else, except that it sleeps through
// a stretch of windows in which it knows the device does nothing: windows_ended() then judges the whole stretch at
// once, exactly as that many window_ended() calls would (quiet_windows() says how long a stretch may be).
//
// Prediction: the compute domain's dynamic power scales with (f'/f) (V'/V)^2 (CMOS, C V^2 f; Rabaey et
// al. 2003, ch. 5) and its leakage with V'/V (power_laws.h). The DRAM's and links' dynamic power is taken to follow
// the clock (f'/f) at their own fixed voltage, since their traffic at most keeps pace with the compute; their static
// power stays. Every part is thus an upper bound for a load whose work follows the clock, so a step up that the
// prediction admits does not overshoot.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/power/clock_domain.h"
#include "models/power/power_params.h"
#include "sim/core/units.h"

namespace roofsim {

struct GovernorParams {
  Watts cap_w = 0;  // 0: no cap (the governor only measures)
  TimeFs window_fs = 0;
  TimeFs reaction_delay_fs = 0;
  std::vector<DvfsState> states;  // ascending clock
  Volts nominal_voltage_v = 1;
  std::size_t up_windows = 8;  // windows at a state whose mean must predict a fit before a step up (power.up_hold)
};

// Average power over a window, split by how each part follows the compute domain's clock and voltage.
struct PowerSplit {
  Watts domain_dynamic_w = 0;  // FLOPs and on-chip SRAM
  Watts other_dynamic_w = 0;   // DRAM and links
  Watts domain_static_w = 0;   // compute-domain leakage
  Watts other_static_w = 0;    // DRAM background

  [[nodiscard]] Watts total_w() const { return domain_dynamic_w + other_dynamic_w + domain_static_w + other_static_w; }
  // Adds `other` x weight / divisor to every part: a term of a time-weighted sum (divisor 1) or of a mean (weight 1).
  void add(const PowerSplit& other, double weight, double divisor) {
    domain_dynamic_w += other.domain_dynamic_w * weight / divisor;
    other_dynamic_w += other.other_dynamic_w * weight / divisor;
    domain_static_w += other.domain_static_w * weight / divisor;
    other_static_w += other.other_static_w * weight / divisor;
  }
};

// The power `measured` at state `from` would become at state `to` (the scaling above).
[[nodiscard]] Watts predict_power_w(const PowerSplit& measured, const DvfsState& from, const DvfsState& to);

// Everything the policy decides from, with absolute times: an imposed stretch leaves the policy in one
// (GovernorModule::impose), moved to the stretch's time.
struct GovernorSnapshot {
  std::size_t state = 0;
  TimeFs window_start_fs = 0;
  bool change_pending = false;
  TimeFs pending_at_fs = 0;
  std::size_t pending_state = 0;
  std::vector<PowerSplit> at_state;  // the windows kept for the up decision, oldest first

  // The same state with every time moved from an origin `from_fs` to `to_fs` (times stay at or after 0 when they
  // were at or after `from_fs` - `to_fs`).
  [[nodiscard]] GovernorSnapshot moved(TimeFs from_fs, TimeFs to_fs) const;
  [[nodiscard]] bool operator==(const GovernorSnapshot& other) const;
};

// A stretch over which the clock follows a course set from outside instead of the policy's decisions
// (GovernorModule::impose): a fast-forwarded op's skipped waves run at the states they were skipped at
// (sim/engine/op_replay.h). Times relative to the stretch's start.
struct ClockTrajectory {
  std::vector<ClockChange> changes;  // in time order, at most duration_fs
  TimeFs duration_fs = 0;
  GovernorSnapshot end;  // the policy after the stretch
};

class GovernorPolicy {
 public:
  // Starts at the fastest state, its first window beginning at time 0.
  explicit GovernorPolicy(GovernorParams params);

  [[nodiscard]] std::size_t state() const { return state_; }
  [[nodiscard]] bool change_pending() const { return pending_.has_value(); }
  [[nodiscard]] TimeFs window_start_fs() const { return window_start_fs_; }
  // When the module must wake next: the end of the current window, or the time a decided change takes effect.
  [[nodiscard]] TimeFs next_wake_fs() const;

  // The current window ended at `now_fs` (== next_wake_fs(), no change pending) with `measured` average power.
  // Returns the state decided on, which takes effect at now + reaction delay (apply()); none to stay.
  std::optional<std::size_t> window_ended(TimeFs now_fs, const PowerSplit& measured);
  // The decided change takes effect at `now_fs` (== next_wake_fs()); returns the new state. A new window starts.
  std::size_t apply(TimeFs now_fs);

  // How many of the next back-to-back windows (no change pending), each with `measured` average power, would end
  // without deciding a change, counted up to `limit`. Once the windows judged at the state all measured the same,
  // every further one decides as the last did, so this looks at no more than min(limit, up_windows + 1) windows.
  [[nodiscard]] std::uint64_t quiet_windows(const PowerSplit& measured, std::uint64_t limit) const;
  // `windows` back-to-back windows ended, the last at `now_fs` (== window_start_fs() + windows x window), each with
  // `measured` average power: the same state and decision as that many window_ended() calls, in at most
  // min(windows, up_windows + 1) steps. All but the last must decide nothing (quiet_windows()); returns the last's.
  std::optional<std::size_t> windows_ended(TimeFs now_fs, std::uint64_t windows, const PowerSplit& measured);

  [[nodiscard]] const GovernorParams& params() const { return params_; }

  // The policy's state, and the policy put in one (a snapshot of a policy with the same parameters).
  [[nodiscard]] GovernorSnapshot snapshot() const;
  void restore(const GovernorSnapshot& snapshot);
  // The mean of the windows kept for the up decision (none: a zero split).
  [[nodiscard]] PowerSplit kept_mean() const;

  // A stretch of windows that happens without passing on the simulated clock: a steady-state fast-forward skips
  // waves at `now_fs` and adds their time at the op's end (sim/engine/wave_fast_forward.h).
  // skip_bound_fs: the longest such stretch from `now_fs`, each of its windows measuring `measured`, through which no
  // window would decide a change (kNever: any; 0: a change is pending). The window that would decide ends after
  // the stretch, so its decision is still simulated.
  [[nodiscard]] TimeFs skip_bound_fs(TimeFs now_fs, const PowerSplit& measured) const;
  // The stretch of `skipped_fs` (at most skip_bound_fs) passed at `now_fs`: the windows that end in it are judged
  // with `measured` and the current window starts where it would after the stretch, shifted back by it, so that the
  // windows after the skip keep their phase and the up decision has counted the skipped windows.
  void skip_windows(TimeFs now_fs, TimeFs skipped_fs, const PowerSplit& measured);

  // A stretch skipped through the window that decides (skip_bound_fs's), each window measuring `measured` up to the
  // decided change and, after it, what the windows at the new state measured when a stretch was last skipped there
  // (steady_split()): the change happens inside the stretch, as it would have on the simulated clock. A skip of
  // steady waves that stops at every decision re-detects the state after each change; under a cap that moves the
  // clock between two adjacent states a few times a wave, those re-detections are most of what is simulated.
  struct Through {
    TimeFs change_after_fs = 0;  // from now: when the decided change takes effect
    std::size_t state = 0;       // the state it moves to
    TimeFs bound_fs = 0;         // from now: the longest stretch through which no window at `state` decides (kNever)
  };
  // None when no window would decide, a change is pending, or the new state has no steady split yet.
  [[nodiscard]] std::optional<Through> through_bound(TimeFs now_fs, const PowerSplit& measured) const;
  // The stretch of `skipped_fs` (from through_bound: at least change_after_fs, at most bound_fs) passed at `now_fs`:
  // the windows are judged, the change applied and the window start moved back by the stretch, as skip_windows does.
  void skip_through(TimeFs now_fs, TimeFs skipped_fs, const PowerSplit& measured);
  // A stretch of `skipped_fs` passed at `now_fs` over which the policy went through whole periods of a cycle that
  // ends where it began (an op's waves, each dipping to a state and climbing back at the same point of the wave): its
  // decisions and kept windows are as they are now, and the current window starts where it would after the stretch,
  // shifted back by it, as skip_windows does. A pending change is no point of a cycle to start from (logic_error).
  void skip_periods(TimeFs now_fs, TimeFs skipped_fs);
  // What the windows at `state` measured when a stretch was last skipped there (none: never).
  [[nodiscard]] const std::optional<PowerSplit>& steady_split(std::size_t state) const { return steady_at_[state]; }

 private:
  struct Pending {
    TimeFs at_fs = 0;
    std::size_t state = 0;
  };
  // Judges one more window measuring `measured` at the current state: adds it to `at_state` (the last up_windows
  // windows) and returns the state to move to, if any. Changes nothing else.
  [[nodiscard]] std::optional<std::size_t> judge(std::vector<PowerSplit>& at_state, const PowerSplit& measured) const;
  // Whether a stretch may be skipped at `now_fs`: no change is pending, and the first window has ended.
  [[nodiscard]] bool may_skip(TimeFs now_fs) const;
  // The end of the window that decides, each window measuring `measured` from the current one on (none: none does).
  [[nodiscard]] std::optional<TimeFs> deciding_end_fs(const PowerSplit& measured) const;
  // The policy once the deciding window's change has taken effect, the windows before it measuring `measured` (the
  // current state's steady split); none when no window decides, a stretch may not be skipped now, or the new state
  // has no steady split.
  [[nodiscard]] std::optional<GovernorPolicy> after_change(TimeFs now_fs, const PowerSplit& measured) const;
  // Windows at a state after which the last up_windows all measured the same: from then on each decides alike.
  [[nodiscard]] std::size_t kept_windows() const { return std::max<std::size_t>(params_.up_windows, 1); }

  GovernorParams params_;
  std::size_t state_ = 0;
  TimeFs window_start_fs_ = 0;
  std::optional<Pending> pending_;
  std::vector<PowerSplit> at_state_;  // the last up_windows windows measured since the last change
  // Per state: the split its windows measured in the last stretch skipped there. Not part of the snapshot: it is
  // what the state was seen to draw, not where the policy stands.
  std::vector<std::optional<PowerSplit>> steady_at_;
};

}  // namespace roofsim
