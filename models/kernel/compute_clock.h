#pragma once
// The clock the compute units run at: the contract between the power model, which moves it (a DVFS state change,
// models/power/clock_domain.h), and the compute model, which reads it for every step and re-times the steps in flight
// when it changes (the cycles still to do stay; their duration follows the new clock). Plain C++, not virtual: a unit
// reads the clock once per step.
#include <cstddef>
#include <vector>

#include "models/kernel/time_fs.h"
#include "sim/core/units.h"

namespace roofsim {

class ClockListener {
 public:
  // The clock changed at `now_fs` from `old_clock_hz` to `new_clock_hz`: re-time work in flight (retime_fs).
  virtual void clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) = 0;

 protected:
  ~ClockListener() = default;
};

class ComputeClock {
 public:
  // The index of the state it runs at (the power model's DVFS states, slowest first).
  [[nodiscard]] std::size_t state() const { return state_; }
  [[nodiscard]] Hertz clock_hz() const { return clock_hz_; }
  // The clock the engines' figures are given at.
  [[nodiscard]] Hertz nominal_clock_hz() const { return nominal_clock_hz_; }
  // Engine clocks scale with the domain clock: an engine given at `nominal_engine_clock_hz` runs at this now.
  [[nodiscard]] Hertz engine_clock_hz(Hertz nominal_engine_clock_hz) const {
    return nominal_engine_clock_hz * clock_scale();
  }
  // f / f_nominal: a rate in FLOP/s given at the nominal clock is this many times as fast now.
  [[nodiscard]] double clock_scale() const { return nominal_clock_hz_ > 0 ? clock_hz_ / nominal_clock_hz_ : 1.0; }

  // Listeners are told of every change, in the order they registered; they must outlive the clock's use.
  void add_listener(ClockListener& listener) { listeners_.push_back(&listener); }

 protected:
  // Its owner sets the first state (change()) before anyone reads it.
  explicit ComputeClock(Hertz nominal_clock_hz) : nominal_clock_hz_(nominal_clock_hz) {}
  ~ComputeClock() = default;

  // Runs at `state`, clocked at `clock_hz`, from `now_fs` on, and tells the listeners.
  void change(std::size_t state, Hertz clock_hz, TimeFs now_fs) {
    const Hertz old_clock_hz = clock_hz_;
    state_ = state;
    clock_hz_ = clock_hz;
    for (auto* listener : listeners_) listener->clock_changed(now_fs, old_clock_hz, clock_hz_);
  }

 private:
  std::size_t state_ = 0;
  Hertz clock_hz_ = 0;
  Hertz nominal_clock_hz_ = 0;
  std::vector<ClockListener*> listeners_;
};

// When work that was to finish at `finish_fs` finishes if the clock changes at `now_fs` from `old_clock_hz` to
// `new_clock_hz`: the remaining (finish - now) x old cycles take remaining x old / new. Rounded once to the fs.
// Work already finished (finish <= now) is unchanged.
[[nodiscard]] TimeFs retime_fs(TimeFs finish_fs, TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz);

}  // namespace roofsim
