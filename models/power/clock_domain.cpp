#include "models/power/clock_domain.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace roofsim {

ClockDomain::ClockDomain(std::vector<DvfsState> states, Hertz nominal_clock_hz)
    : ComputeClock(nominal_clock_hz), states_(std::move(states)) {
  if (states_.empty()) states_.push_back({nominal_clock_hz, 1.0});
  change(top_state(), states_.back().clock_hz, 0);  // no listener yet: this is where it starts, not a change
}

void ClockDomain::set_state(std::size_t state, TimeFs now_fs) {
  if (state >= states_.size()) throw std::out_of_range("ClockDomain::set_state: no such DVFS state");
  if (state == this->state()) return;
  if (!changes_.empty() && now_fs < changes_.back().at_fs) {
    throw std::logic_error("ClockDomain::set_state: a change before the previous one");
  }
  changes_.push_back({now_fs, state});
  change(state, states_[state].clock_hz, now_fs);
}

std::vector<StateInterval> ClockDomain::timeline(TimeFs end_fs) const {
  std::vector<StateInterval> intervals;
  std::size_t state = states_.size() - 1;
  TimeFs start = 0;
  for (const auto& change : changes_) {
    if (change.at_fs > start) intervals.push_back({start, change.at_fs, state});
    start = change.at_fs;
    state = change.state;
  }
  if (end_fs > start) intervals.push_back({start, end_fs, state});
  return intervals;
}

std::vector<ClockChange> ClockDomain::changes_from(std::uint64_t first) const {
  if (first >= changes_.size()) return {};
  return {changes_.begin() + static_cast<std::ptrdiff_t>(first), changes_.end()};
}

Seconds throttling_loss_s(const std::vector<TimeFs>& busy_at_state_fs, const std::vector<DvfsState>& states,
                          Hertz nominal_clock_hz) {
  Seconds lost = 0;
  if (nominal_clock_hz <= 0) return lost;
  for (std::size_t s = 0; s < busy_at_state_fs.size() && s < states.size(); ++s) {
    const double slower = 1.0 - states[s].clock_hz / nominal_clock_hz;
    if (slower > 0) lost += fs_to_seconds(busy_at_state_fs[s]) * slower;
  }
  return lost;
}

}  // namespace roofsim
