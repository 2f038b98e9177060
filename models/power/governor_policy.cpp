#include "models/power/governor_policy.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sim/core/power_laws.h"

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
  at_state_.push_back(measured);
  if (at_state_.size() > std::max<std::size_t>(params_.up_windows, 1)) at_state_.erase(at_state_.begin());
  std::optional<std::size_t> target;
  const std::size_t up_windows = std::max<std::size_t>(params_.up_windows, 1);
  if (measured.total_w() > params_.cap_w) {
    if (state_ > 0) target = state_ - 1;
  } else if (state_ + 1 < params_.states.size() && at_state_.size() >= up_windows) {
    PowerSplit mean;
    for (auto it = at_state_.end() - static_cast<std::ptrdiff_t>(up_windows); it != at_state_.end(); ++it) {
      mean.domain_dynamic_w += it->domain_dynamic_w / static_cast<double>(up_windows);
      mean.other_dynamic_w += it->other_dynamic_w / static_cast<double>(up_windows);
      mean.domain_static_w += it->domain_static_w / static_cast<double>(up_windows);
      mean.other_static_w += it->other_static_w / static_cast<double>(up_windows);
    }
    if (predict_power_w(mean, params_.states[state_], params_.states[state_ + 1]) <= params_.cap_w) {
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
  at_state_.clear();
  window_start_fs_ = now_fs;
  return state_;
}

}  // namespace roofsim
