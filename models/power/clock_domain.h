#pragma once
// The compute power domain's clock: its DVFS states (clock and voltage), the one it runs at, which is the clock the
// compute units read (models/kernel/compute_clock.h, re-timing their steps in flight when it changes), and the state
// timeline (when each state began) for the energy ledger and the reports. Plain C++: the governor module sets the
// state.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernel/compute_clock.h"
#include "models/kernel/time_fs.h"
#include "models/power/power_params.h"
#include "sim/core/units.h"

namespace roofsim {

// A span of time the domain spent in one DVFS state.
struct StateInterval {
  TimeFs start_fs = 0;
  TimeFs end_fs = 0;
  std::size_t state = 0;
};

// A change of DVFS state: when it took effect and the state it moved to.
struct ClockChange {
  TimeFs at_fs = 0;
  std::size_t state = 0;
};

class ClockDomain : public ComputeClock {
 public:
  // `states` ascending in clock (PowerParams::dvfs); engine figures are given at `nominal_clock_hz`. Starts in
  // the fastest state.
  ClockDomain(std::vector<DvfsState> states, Hertz nominal_clock_hz);

  [[nodiscard]] const std::vector<DvfsState>& states() const { return states_; }
  [[nodiscard]] std::size_t top_state() const { return states_.size() - 1; }
  [[nodiscard]] Volts voltage_v() const { return states_[state()].voltage_v; }
  // Moves to `state` at `now_fs` (not before the last change); a no-op when already there.
  void set_state(std::size_t state, TimeFs now_fs);

  // The state timeline from 0 to `end_fs` (>= the last change), adjacent intervals, no empty ones.
  [[nodiscard]] std::vector<StateInterval> timeline(TimeFs end_fs) const;
  [[nodiscard]] std::uint64_t changes() const { return changes_.size(); }
  // The changes from the `first`-th on (0: all), oldest first.
  [[nodiscard]] std::vector<ClockChange> changes_from(std::uint64_t first) const;

 private:
  std::vector<DvfsState> states_;
  std::vector<ClockChange> changes_;
};

// Time lost to throttling: engine work of `busy_at_state_fs[s]` at state s took
// f_nominal / f_s times as long as at the nominal clock, so it lost busy x (1 - f_s / f_nominal). States at or
// above the nominal clock lose nothing. Summed over states; 0 for an empty vector.
[[nodiscard]] Seconds throttling_loss_s(const std::vector<TimeFs>& busy_at_state_fs,
                                        const std::vector<DvfsState>& states, Hertz nominal_clock_hz);

}  // namespace roofsim
