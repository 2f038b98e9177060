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

std::optional<std::size_t> GovernorPolicy::judge(std::vector<PowerSplit>& at_state, const PowerSplit& measured) const {
  at_state.push_back(measured);
  if (at_state.size() > kept_windows()) at_state.erase(at_state.begin());
  const std::size_t up_windows = kept_windows();
  if (measured.total_w() > params_.cap_w) {
    if (state_ > 0) return state_ - 1;
  } else if (state_ + 1 < params_.states.size() && at_state.size() >= up_windows) {
    PowerSplit mean;
    for (auto it = at_state.end() - static_cast<std::ptrdiff_t>(up_windows); it != at_state.end(); ++it) {
      mean.domain_dynamic_w += it->domain_dynamic_w / static_cast<double>(up_windows);
      mean.other_dynamic_w += it->other_dynamic_w / static_cast<double>(up_windows);
      mean.domain_static_w += it->domain_static_w / static_cast<double>(up_windows);
      mean.other_static_w += it->other_static_w / static_cast<double>(up_windows);
    }
    if (predict_power_w(mean, params_.states[state_], params_.states[state_ + 1]) <= params_.cap_w) {
      return state_ + 1;
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> GovernorPolicy::window_ended(TimeFs now_fs, const PowerSplit& measured) {
  if (pending_ || now_fs != next_wake_fs()) throw std::logic_error("GovernorPolicy: a window ended out of turn");
  window_start_fs_ = now_fs;
  if (params_.cap_w <= 0) return std::nullopt;
  const auto target = judge(at_state_, measured);
  if (target) pending_ = Pending{now_fs + params_.reaction_delay_fs, *target};
  return target;
}

std::uint64_t GovernorPolicy::quiet_windows(const PowerSplit& measured, std::uint64_t limit) const {
  if (pending_) return 0;
  if (params_.cap_w <= 0) return limit;
  auto at_state = at_state_;
  for (std::uint64_t window = 1; window <= limit; ++window) {
    if (judge(at_state, measured)) return window - 1;
    // The kept windows all measured `measured` now: each further window sees the same mean and decides alike.
    if (window >= kept_windows()) return limit;
  }
  return limit;
}

std::optional<std::size_t> GovernorPolicy::windows_ended(TimeFs now_fs, std::uint64_t windows,
                                                         const PowerSplit& measured) {
  if (pending_ || windows == 0 || now_fs < window_start_fs_ ||
      (now_fs - window_start_fs_) / params_.window_fs != windows ||
      (now_fs - window_start_fs_) % params_.window_fs != 0) {
    throw std::logic_error("GovernorPolicy: a stretch of windows ended out of turn");
  }
  window_start_fs_ = now_fs;
  if (params_.cap_w <= 0) return std::nullopt;
  std::optional<std::size_t> target;
  for (std::uint64_t window = 1; window <= windows; ++window) {
    target = judge(at_state_, measured);
    if (target && window < windows) throw std::logic_error("GovernorPolicy: a change decided inside a quiet stretch");
    // As in quiet_windows(): the windows left would each leave the state as it is.
    if (!target && window >= kept_windows()) break;
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
