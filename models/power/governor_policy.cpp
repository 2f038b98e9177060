#include "models/power/governor_policy.h"

#include <stdexcept>
#include <utility>

#include "models/power/power_laws.h"

namespace roofsim {

Watts predict_power_w(const PowerSplit& measured, const DvfsState& from, const DvfsState& to) {
  const double clock_ratio = from.clock_hz > 0 ? to.clock_hz / from.clock_hz : 1.0;
  const double dynamic_scale = dynamic_energy_scale(to.voltage_v, from.voltage_v);
  return measured.domain_dynamic_w * clock_ratio * dynamic_scale + measured.other_dynamic_w * clock_ratio +
         static_power_at_w(measured.domain_static_w, to.voltage_v, from.voltage_v) + measured.other_static_w;
}

GovernorPolicy::GovernorPolicy(GovernorParams params) : params_(std::move(params)) {
  if (params_.states.empty()) throw std::invalid_argument("GovernorPolicy: no DVFS state");
  if (params_.window_fs == 0) throw std::invalid_argument("GovernorPolicy: a window of 0 s");
  state_ = params_.states.size() - 1;
}

TimeFs GovernorPolicy::next_wake_fs() const {
  return pending_ ? pending_->at_fs : window_start_fs_ + params_.window_fs;
}

std::optional<std::size_t> GovernorPolicy::window_ended(TimeFs now_fs, const PowerSplit& measured) {
  if (pending_ || now_fs != next_wake_fs()) throw std::logic_error("GovernorPolicy: a window ended out of turn");
  window_start_fs_ = now_fs;
  if (params_.cap_w <= 0) return std::nullopt;
  std::optional<std::size_t> target;
  if (measured.total_w() > params_.cap_w) {
    if (state_ > 0) target = state_ - 1;
  } else if (state_ + 1 < params_.states.size()) {
    if (predict_power_w(measured, params_.states[state_], params_.states[state_ + 1]) <= params_.cap_w) {
      target = state_ + 1;
    }
  }
  if (target) pending_ = Pending{now_fs + params_.reaction_delay_fs, *target};
  return target;
}

std::size_t GovernorPolicy::apply(TimeFs now_fs) {
  if (!pending_ || now_fs != pending_->at_fs) throw std::logic_error("GovernorPolicy: a change applied out of turn");
  state_ = pending_->state;
  pending_.reset();
  window_start_fs_ = now_fs;
  return state_;
}

}  // namespace roofsim
