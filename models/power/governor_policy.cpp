#include "models/power/governor_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

GovernorSnapshot GovernorSnapshot::moved(TimeFs from_fs, TimeFs to_fs) const {
  GovernorSnapshot s = *this;
  // Unsigned arithmetic wraps and unwraps: t - from + to is exact whenever the result is at least 0.
  s.window_start_fs = window_start_fs - from_fs + to_fs;
  if (change_pending) s.pending_at_fs = pending_at_fs - from_fs + to_fs;
  return s;
}

namespace {
bool same_split(const PowerSplit& a, const PowerSplit& b) {
  return a.domain_dynamic_w == b.domain_dynamic_w && a.other_dynamic_w == b.other_dynamic_w &&
         a.domain_static_w == b.domain_static_w && a.other_static_w == b.other_static_w;
}
}  // namespace

bool GovernorSnapshot::operator==(const GovernorSnapshot& o) const {
  return state == o.state && window_start_fs == o.window_start_fs && change_pending == o.change_pending &&
         (!change_pending || (pending_at_fs == o.pending_at_fs && pending_state == o.pending_state)) &&
         at_state.size() == o.at_state.size() &&
         std::equal(at_state.begin(), at_state.end(), o.at_state.begin(), same_split);
}

GovernorPolicy::GovernorPolicy(GovernorParams params) : params_(std::move(params)) {
  if (params_.states.empty()) throw std::invalid_argument("GovernorPolicy: no DVFS state");
  if (params_.window_fs == 0) throw std::invalid_argument("GovernorPolicy: a window of 0 s");
  state_ = params_.states.size() - 1;
  steady_at_.assign(params_.states.size(), std::nullopt);
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
      mean.add(*it, 1.0, static_cast<double>(up_windows));
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

GovernorSnapshot GovernorPolicy::snapshot() const {
  GovernorSnapshot s;
  s.state = state_;
  s.window_start_fs = window_start_fs_;
  s.change_pending = pending_.has_value();
  if (pending_) {
    s.pending_at_fs = pending_->at_fs;
    s.pending_state = pending_->state;
  }
  s.at_state = at_state_;
  return s;
}

void GovernorPolicy::restore(const GovernorSnapshot& s) {
  if (s.state >= params_.states.size() || (s.change_pending && s.pending_state >= params_.states.size())) {
    throw std::invalid_argument("GovernorPolicy::restore: no such DVFS state");
  }
  state_ = s.state;
  window_start_fs_ = s.window_start_fs;
  pending_.reset();
  if (s.change_pending) pending_ = Pending{s.pending_at_fs, s.pending_state};
  at_state_ = s.at_state;
  if (at_state_.size() > kept_windows()) at_state_.erase(at_state_.begin(), at_state_.end() - kept_windows());
}

PowerSplit GovernorPolicy::kept_mean() const {
  PowerSplit mean;
  const auto n = static_cast<double>(at_state_.size());
  for (const auto& w : at_state_) mean.add(w, 1.0, n);
  return mean;
}

bool GovernorPolicy::may_skip(TimeFs now_fs) const {
  // A stretch shifts the window start back by its length; before the first window there is nothing to shift into.
  return !pending_ && now_fs >= window_start_fs_ && now_fs >= params_.window_fs;
}

std::optional<TimeFs> GovernorPolicy::deciding_end_fs(const PowerSplit& measured) const {
  constexpr std::uint64_t kAny = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t quiet = quiet_windows(measured, kAny);
  if (quiet == kAny) return std::nullopt;
  // The window that decides is the (quiet + 1)-th from the current one.
  return window_start_fs_ + (quiet + 1) * params_.window_fs;
}

TimeFs GovernorPolicy::skip_bound_fs(TimeFs now_fs, const PowerSplit& measured) const {
  if (params_.cap_w <= 0) return kNever;
  if (!may_skip(now_fs)) return 0;
  const auto deciding_end = deciding_end_fs(measured);
  if (!deciding_end) return kNever;
  // The stretch must end before the deciding window does.
  return *deciding_end > now_fs + 1 ? *deciding_end - now_fs - 1 : 0;
}

void GovernorPolicy::skip_windows(TimeFs now_fs, TimeFs skipped_fs, const PowerSplit& measured) {
  if (skipped_fs == 0) return;
  if (skipped_fs > skip_bound_fs(now_fs, measured)) {
    throw std::logic_error("GovernorPolicy: a skipped stretch past a window that decides");
  }
  const TimeFs window = params_.window_fs;
  const std::uint64_t ended = (now_fs + skipped_fs - window_start_fs_) / window;
  steady_at_[state_] = measured;
  if (params_.cap_w > 0) {
    for (std::uint64_t w = 0; w < ended && w < kept_windows(); ++w) {
      if (judge(at_state_, measured)) throw std::logic_error("GovernorPolicy: a change decided inside a skip");
    }
  }
  // After the stretch the window started at window_start + ended x window, which lies in (now + skipped - window,
  // now + skipped]; on the simulated clock, which did not move, that is `skipped` earlier.
  const TimeFs start_after = window_start_fs_ + ended * window;
  if (start_after < skipped_fs) throw std::logic_error("GovernorPolicy: a skip before the first window");
  window_start_fs_ = start_after - skipped_fs;
}

void GovernorPolicy::skip_periods(TimeFs now_fs, TimeFs skipped_fs) {
  if (skipped_fs == 0) return;
  if (pending_) throw std::logic_error("GovernorPolicy: whole periods skipped while a change is pending");
  const TimeFs window = params_.window_fs;
  const TimeFs start_after = window_start_fs_ + (now_fs + skipped_fs - window_start_fs_) / window * window;
  if (start_after < skipped_fs) throw std::logic_error("GovernorPolicy: a skip before the first window");
  window_start_fs_ = start_after - skipped_fs;
}

std::optional<GovernorPolicy> GovernorPolicy::after_change(TimeFs now_fs, const PowerSplit& measured) const {
  if (params_.cap_w <= 0 || !may_skip(now_fs)) return std::nullopt;
  const auto deciding_end = deciding_end_fs(measured);
  if (!deciding_end || *deciding_end <= now_fs) return std::nullopt;
  // The windows up to the one that decides, then the change: as window_ended and apply would have them.
  GovernorPolicy after = *this;
  after.steady_at_[state_] = measured;
  const auto target =
      after.windows_ended(*deciding_end, (*deciding_end - window_start_fs_) / params_.window_fs, measured);
  if (!target || !steady_at_[*target]) return std::nullopt;
  after.apply(after.pending_->at_fs);
  return after;
}

std::optional<GovernorPolicy::Through> GovernorPolicy::through_bound(TimeFs now_fs, const PowerSplit& measured) const {
  const auto after = after_change(now_fs, measured);
  if (!after) return std::nullopt;
  // apply() starts the new state's first window at the change.
  const TimeFs change_fs = after->window_start_fs_;
  const TimeFs bound_after = after->skip_bound_fs(change_fs, *steady_at_[after->state_]);
  Through through;
  through.change_after_fs = change_fs - now_fs;
  through.state = after->state_;
  through.bound_fs = bound_after == kNever ? kNever : through.change_after_fs + bound_after;
  return through;
}

void GovernorPolicy::skip_through(TimeFs now_fs, TimeFs skipped_fs, const PowerSplit& measured) {
  const auto through = through_bound(now_fs, measured);
  if (!through || skipped_fs < through->change_after_fs || skipped_fs > through->bound_fs) {
    throw std::logic_error("GovernorPolicy: a stretch skipped through a change it does not reach, or past the next");
  }
  GovernorPolicy after = *after_change(now_fs, measured);
  // The windows at the new state are skipped from the change on; the stretch began `change_after_fs` before it.
  after.skip_windows(now_fs + through->change_after_fs, skipped_fs - through->change_after_fs,
                     *steady_at_[after.state_]);
  if (after.window_start_fs_ < through->change_after_fs) {
    throw std::logic_error("GovernorPolicy: a skip before the first window");
  }
  after.window_start_fs_ -= through->change_after_fs;
  *this = std::move(after);
}

}  // namespace roofsim
