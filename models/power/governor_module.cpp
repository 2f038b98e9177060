#include "models/power/governor_module.h"

#include <limits>
#include <stdexcept>

namespace roofsim {

namespace {
constexpr std::uint64_t kAnyWindows = std::numeric_limits<std::uint64_t>::max();
}  // namespace

GovernorModule::GovernorModule(const sc_core::sc_module_name& name, const GovernorParams& params,
                               const EnergyModel& model, ClockDomain& clock, const DeviceActivity& device,
                               DeviceScheduler* scheduler)
    : sc_core::sc_module(name),
      model_(model),
      clock_(clock),
      device_(device),
      scheduler_(scheduler),
      policy_(params),
      ledger_(model, params.states, device.op_count()),
      seen_(device.op_count(), model.activity()),
      settled_(device.op_count(), false),
      scratch_(model.activity()) {
  SC_HAS_PROCESS(GovernorModule);
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
  wake_event_.notify(sc_core::sc_time::from_value(policy_.next_wake_fs()));
}

void GovernorModule::arm_at(TimeFs at_fs, TimeFs now_fs) {
  wake_event_.notify(sc_core::sc_time::from_value(at_fs - now_fs));
}

PowerSplit GovernorModule::split_of(const EnergyBreakdown& dynamic, Volts voltage, Seconds seconds) const {
  PowerSplit split;
  const Joules dram_j = model_.dram_index() < dynamic.level_j.size() ? dynamic.level_j[model_.dram_index()] : 0.0;
  split.domain_dynamic_w = (dynamic.compute_j + dynamic.sram_j(model_.dram_index())) / seconds;
  split.other_dynamic_w = (dram_j + dynamic.network_j) / seconds;
  split.domain_static_w = model_.compute_static_w(voltage);
  split.other_static_w = model_.memory_static_w();
  return split;
}

PowerSplit GovernorModule::idle_split() const {
  const Volts voltage = clock_.voltage_v();
  return split_of(model_.dynamic_energy(model_.activity(), voltage), voltage,
                  static_cast<double>(policy_.params().window_fs) * 1e-15);
}

void GovernorModule::close_interval(TimeFs end_fs) {
  if (end_fs <= interval_start_fs_) return;
  auto total = model_.activity();
  const std::size_t launched_end = std::min(seen_.size(), device_.launched_end());
  for (std::size_t op = first_open_; op < launched_end; ++op) {
    if (settled_[op] || !device_.launched(op)) continue;
    scratch_ = model_.activity();
    device_.add_op_activity(op, scratch_);
    if (device_.settled(op)) settled_[op] = true;
    Activity delta = scratch_;
    delta -= seen_[op];
    seen_[op] = scratch_;
    if (!followed_.empty()) {
      for (auto& f : followed_) {
        if (f.op != op) continue;
        if (!delta.empty()) {
          f.energy_j += model_.dynamic_energy(delta, clock_.states().back().voltage_v).dynamic_j();
        }
        f.energies.emplace_back(end_fs, f.energy_j);
      }
    }
    if (delta.empty()) continue;
    ledger_.add(op, clock_.state(), delta);
    total += delta;
  }
  while (first_open_ < settled_.size() && settled_[first_open_]) ++first_open_;
  const Volts voltage = clock_.voltage_v();
  const auto dynamic = model_.dynamic_energy(total, voltage);
  const double seconds = static_cast<double>(end_fs - interval_start_fs_) * 1e-15;
  PowerSample sample;
  sample.start_fs = interval_start_fs_;
  sample.end_fs = end_fs;
  sample.state = clock_.state();
  sample.clock_hz = clock_.clock_hz();
  sample.voltage_v = voltage;
  sample.power = split_of(dynamic, voltage, seconds);
  sample.energy_j = dynamic.dynamic_j() + (sample.power.domain_static_w + sample.power.other_static_w) * seconds;
  trace_.push_back(sample);
  interval_start_fs_ = end_fs;
}

void GovernorModule::judge_windows(TimeFs end_fs) {
  const std::uint64_t windows = (end_fs - policy_.window_start_fs()) / policy_.params().window_fs;
  close_interval(end_fs);
  if (windows == 1) {
    (void)policy_.window_ended(end_fs, window_power(end_fs));
    return;
  }
  const PowerSplit measured = trace_.empty() || trace_.back().end_fs != end_fs ? PowerSplit{} : trace_.back().power;
  // A stretch slept through: the device did nothing in it, or the sleep was planned wrong.
  if (measured.domain_dynamic_w != 0 || measured.other_dynamic_w != 0) {
    throw std::logic_error("GovernorModule: activity inside an idle stretch");
  }
  (void)policy_.windows_ended(end_fs, windows, measured);
}

PowerSplit GovernorModule::window_power(TimeFs end_fs) const {
  const TimeFs start = policy_.window_start_fs();
  if (trace_.empty()) return PowerSplit{};
  if (trace_.back().start_fs <= start && trace_.back().end_fs == end_fs) return trace_.back().power;
  PowerSplit sum;
  double weight = 0;
  for (auto it = trace_.rbegin(); it != trace_.rend() && it->end_fs > start; ++it) {
    const TimeFs lo = std::max(it->start_fs, start), hi = std::min(it->end_fs, end_fs);
    if (hi <= lo) continue;
    const auto w = static_cast<double>(hi - lo);
    weight += w;
    sum.add(it->power, w, 1.0);
  }
  if (weight <= 0) return PowerSplit{};
  PowerSplit mean;
  mean.add(sum, 1.0, weight);
  return mean;
}

void GovernorModule::rearm(TimeFs now_fs) {
  wake_event_.cancel();
  if (scheduler_ != nullptr) scheduler_->unwatch();
  planned_fs_ = kNever;
  if (done_) return;
  if (imposed_.active()) {
    arm_at(std::max(imposed_.next_event_fs(), now_fs), now_fs);
    return;
  }
  plan(now_fs);
}

void GovernorModule::advance_imposed(TimeFs now_fs) {
  close_interval(now_fs);
  while (const auto state = imposed_.take_due(now_fs)) clock_.set_state(*state, now_fs);
  if (now_fs >= imposed_.end_fs()) {
    finish_imposed(now_fs);
    return;
  }
  rearm(now_fs);
}

void GovernorModule::finish_imposed(TimeFs now_fs) {
  policy_.restore(imposed_.finish());
  clock_.set_state(policy_.state(), now_fs);
  rearm(now_fs);
}

void GovernorModule::settle(TimeFs now_fs) {
  if (imposed_.active() && now_fs >= imposed_.end_fs()) advance_imposed(now_fs);
}

GovernorSnapshot GovernorModule::snapshot(TimeFs now_fs) {
  settle(now_fs);
  return policy_.snapshot();
}

void GovernorModule::impose(TimeFs now_fs, const ClockTrajectory& trajectory) {
  settle(now_fs);
  if (imposed_.active()) throw std::logic_error("GovernorModule: a clock course imposed over another");
  // Without a cap the clock never moves and the policy only measures: nothing to impose.
  if (done_ || policy_.params().cap_w <= 0) return;
  imposed_.begin(now_fs, trajectory, policy_.snapshot());
  advance_imposed(now_fs);
}

void GovernorModule::release(TimeFs now_fs) {
  if (!imposed_.active()) return;
  close_interval(now_fs);
  policy_.restore(imposed_.release(now_fs, clock_.state()));
  rearm(now_fs);
}

TimeFs GovernorModule::skip_bound_fs(TimeFs now_fs) const {
  if (imposed_.active()) return 0;
  return policy_.skip_bound_fs(now_fs, policy_.kept_mean());
}

void GovernorModule::skip_windows(TimeFs now_fs, TimeFs skipped_fs) {
  if (skipped_fs == 0) return;
  // The windows' measurements so far close here: the current window's power is read from its samples.
  close_interval(now_fs);
  policy_.skip_windows(now_fs, skipped_fs, policy_.kept_mean());
  rearm(now_fs);
}

bool GovernorModule::skip_periods(TimeFs now_fs, TimeFs skipped_fs) {
  if (imposed_.active() || policy_.change_pending()) return false;
  close_interval(now_fs);
  policy_.skip_periods(now_fs, skipped_fs);
  rearm(now_fs);
  return true;
}

std::optional<GovernorPolicy::Through> GovernorModule::through_bound(TimeFs now_fs) const {
  if (imposed_.active()) return std::nullopt;
  return policy_.through_bound(now_fs, policy_.kept_mean());
}

void GovernorModule::skip_through(TimeFs now_fs, TimeFs skipped_fs) {
  close_interval(now_fs);
  policy_.skip_through(now_fs, skipped_fs, policy_.kept_mean());
  clock_.set_state(policy_.state(), now_fs);
  rearm(now_fs);
}

void GovernorModule::wake() {
  if (done_) return;
  ++wakes_;
  planned_fs_ = kNever;
  if (scheduler_ != nullptr) scheduler_->unwatch();
  const TimeFs now = sc_core::sc_time_stamp().value();
  TimeFs end = 0;
  if (device_.finished(end)) {
    // The run ended at `end` (at most now): the last interval stops there and the governor sleeps for good, so
    // that it does not keep the simulation alive.
    close_interval(std::max(end, interval_start_fs_));
    done_ = true;
    return;
  }
  if (imposed_.active()) {
    advance_imposed(now);
    return;
  }
  if (policy_.change_pending()) {
    close_interval(now);
    clock_.set_state(policy_.apply(now), now);
  } else {
    judge_windows(now);
  }
  plan(now);
}

void GovernorModule::plan(TimeFs now_fs) {
  const TimeFs next = policy_.next_wake_fs();
  if (scheduler_ == nullptr || policy_.change_pending() || device_.replaying(now_fs)) {
    arm_at(next, now_fs);
    return;
  }
  // The windows that end by the time the device's work is next due see none of it: at that instant the governor
  // wakes before the work runs.
  const TimeFs start = policy_.window_start_fs();
  const TimeFs window = policy_.params().window_fs;
  const TimeFs due = scheduler_->next_due_fs();
  const std::uint64_t idle = due == kNever ? kAnyWindows : due <= start ? 0 : (due - start) / window;
  const std::uint64_t quiet = idle < 2 ? 0 : policy_.quiet_windows(idle_split(), idle);
  // Sleep to the last idle window, or to the window whose idle power makes the policy decide.
  const std::uint64_t windows = quiet < idle ? quiet + 1 : idle;
  if (windows < 2) {
    arm_at(next, now_fs);
    return;
  }
  planned_fs_ = windows == kAnyWindows ? kNever : start + windows * window;
  if (planned_fs_ != kNever) arm_at(planned_fs_, now_fs);
  scheduler_->watch(*this, planned_fs_);
}

void GovernorModule::wake_asked(TimeFs at_fs) {
  // Work is due at `at_fs`, earlier than the planned wake: the windows that end by then are still idle.
  const TimeFs now = sc_core::sc_time_stamp().value();
  const TimeFs start = policy_.window_start_fs();
  const TimeFs window = policy_.params().window_fs;
  const TimeFs end = start + (at_fs - start) / window * window;
  if (end == planned_fs_) return;  // the planned wake comes first at that instant
  planned_fs_ = kNever;
  wake_event_.cancel();
  if (end == start) {
    arm_at(start + window, now);
  } else if (end > now) {
    arm_at(end, now);
  } else {
    // The idle windows ended already: judge them now, before the work runs. None decides (the planned wake was
    // at the first that would), so the next wake is the next window's end, after `at_fs`.
    ++wakes_;
    judge_windows(end);
    arm_at(policy_.next_wake_fs(), now);
  }
}

void GovernorModule::follow(std::size_t op) {
  for (const auto& f : followed_) {
    if (f.op == op) return;
  }
  followed_.push_back(Followed{op, 0.0, {}});
}

std::vector<std::pair<TimeFs, double>> GovernorModule::unfollow(std::size_t op) {
  for (std::size_t i = 0; i < followed_.size(); ++i) {
    if (followed_[i].op != op) continue;
    auto energies = std::move(followed_[i].energies);
    followed_.erase(followed_.begin() + static_cast<std::ptrdiff_t>(i));
    return energies;
  }
  return {};
}

EnergyTotals GovernorModule::totals(const std::vector<OpInterval>& ops) const {
  return ledger_.finish(ops, clock_.timeline(interval_start_fs_));
}

}  // namespace roofsim
