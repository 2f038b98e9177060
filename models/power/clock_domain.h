#pragma once
// The compute power domain's clock: the DVFS state it runs at, the clock the compute units should
// use now, and a callback for the units when it changes so that steps in flight are re-timed (the cycles still to
// do stay; their duration follows the new clock). Plain C++: the governor module sets the state, the units read
// the clock. It also keeps the state timeline (when each state began) for the energy ledger and the reports.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/memory/time_fs.h"
#include "sim/config/hardware_params.h"
#include "sim/core/units.h"

namespace roofsim {

// A span of time the domain spent in one DVFS state.
struct StateInterval {
  TimeFs start_fs = 0;
  TimeFs end_fs = 0;
  std::size_t state = 0;
};

class ClockListener {
 public:
  // The clock changed at `now_fs` from `old_clock_hz` to `new_clock_hz`: re-time work in flight (retime_fs).
  virtual void clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) = 0;

 protected:
  ~ClockListener() = default;
};

class ClockDomain {
 public:
  // `states` ascending in clock (PowerParams::dvfs); engine figures are given at `nominal_clock_hz`. Starts in
  // the fastest state.
  ClockDomain(std::vector<DvfsState> states, Hertz nominal_clock_hz);

  [[nodiscard]] const std::vector<DvfsState>& states() const { return states_; }
  [[nodiscard]] std::size_t state() const { return state_; }
  [[nodiscard]] std::size_t top_state() const { return states_.size() - 1; }
  [[nodiscard]] Hertz clock_hz() const { return states_[state_].clock_hz; }
  [[nodiscard]] Volts voltage_v() const { return states_[state_].voltage_v; }
  [[nodiscard]] Hertz nominal_clock_hz() const { return nominal_clock_hz_; }
  // Engine clocks scale with the domain clock: an engine given at `nominal_engine_clock_hz` runs at this now.
  [[nodiscard]] Hertz engine_clock_hz(Hertz nominal_engine_clock_hz) const {
    return nominal_engine_clock_hz * clock_scale();
  }
  // f / f_nominal: a rate in FLOP/s given at the nominal clock is this many times as fast now.
  [[nodiscard]] double clock_scale() const { return nominal_clock_hz_ > 0 ? clock_hz() / nominal_clock_hz_ : 1.0; }

  // Listeners are told of every change, in the order they registered; they must outlive the domain's use.
  void add_listener(ClockListener& listener) { listeners_.push_back(&listener); }
  // Moves to `state` at `now_fs` (not before the last change); a no-op when already there.
  void set_state(std::size_t state, TimeFs now_fs);

  // The state timeline from 0 to `end_fs` (>= the last change), adjacent intervals, no empty ones.
  [[nodiscard]] std::vector<StateInterval> timeline(TimeFs end_fs) const;
  [[nodiscard]] std::uint64_t changes() const { return changes_.size(); }

 private:
  struct Change {
    TimeFs at_fs = 0;
    std::size_t state = 0;
  };
  std::vector<DvfsState> states_;
  Hertz nominal_clock_hz_ = 0;
  std::size_t state_ = 0;
  std::vector<Change> changes_;
  std::vector<ClockListener*> listeners_;
};

// When work that was to finish at `finish_fs` finishes if the clock changes at `now_fs` from `old_clock_hz` to
// `new_clock_hz`: the remaining (finish - now) x old cycles take remaining x old / new. Rounded once to the fs.
// Work already finished (finish <= now) is unchanged.
[[nodiscard]] TimeFs retime_fs(TimeFs finish_fs, TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz);

// Time lost to throttling: engine work of `busy_at_state_fs[s]` at state s took
// f_nominal / f_s times as long as at the nominal clock, so it lost busy x (1 - f_s / f_nominal). States at or
// above the nominal clock lose nothing. Summed over states; 0 for an empty vector.
[[nodiscard]] Seconds throttling_loss_s(const std::vector<TimeFs>& busy_at_state_fs,
                                        const std::vector<DvfsState>& states, Hertz nominal_clock_hz);

}  // namespace roofsim
