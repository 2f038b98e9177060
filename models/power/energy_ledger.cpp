#include "models/power/energy_ledger.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

namespace roofsim {

namespace {

constexpr double kSecondsPerFs = 1e-15;
constexpr TimeFs kNoTime = std::numeric_limits<TimeFs>::max();

Flops total_flops(const Activity& activity) {
  Flops sum = 0;
  for (const Flops flops : activity.flops) sum += flops;
  return sum;
}

}  // namespace

Watts OpEnergy::average_power_w() const {
  return duration_fs == 0 ? 0.0 : energy.total_j() / (static_cast<double>(duration_fs) * kSecondsPerFs);
}

double OpEnergy::joules_per_flop() const {
  return flops == 0 ? 0.0 : energy.total_j() / static_cast<double>(flops);
}

Watts EnergyTotals::average_power_w() const {
  return run_fs == 0 ? 0.0 : total.total_j() / (static_cast<double>(run_fs) * kSecondsPerFs);
}

EnergyLedger::EnergyLedger(const EnergyModel& model, std::vector<DvfsState> states, std::size_t ops)
    : model_(model), states_(std::move(states)), activity_(ops) {}

void EnergyLedger::add(std::size_t op, std::size_t state, const Activity& activity) {
  if (state >= states_.size()) throw std::out_of_range("EnergyLedger::add: no such DVFS state");
  auto& by_state = activity_.at(op);
  auto it =
      std::lower_bound(by_state.begin(), by_state.end(), state,
                       [](const std::pair<std::size_t, Activity>& entry, std::size_t s) { return entry.first < s; });
  if (it == by_state.end() || it->first != state) it = by_state.emplace(it, state, model_.activity());
  it->second += activity;
}

EnergyTotals EnergyLedger::finish(const std::vector<OpInterval>& ops,
                                  const std::vector<StateInterval>& timeline) const {
  if (ops.size() != activity_.size()) throw std::logic_error("EnergyLedger::finish: one interval per op expected");
  const std::size_t state_count = states_.size();
  EnergyTotals totals;
  totals.ops.resize(ops.size());
  totals.time_at_state_fs.assign(state_count, 0);
  totals.run_fs = timeline.empty() ? 0 : timeline.back().end_fs;

  // Static time, as integers: per op, per (state, number of ops sharing it) the femtoseconds it was charged.
  std::vector<std::map<std::pair<std::size_t, std::size_t>, TimeFs>> shares(ops.size());
  std::vector<TimeFs> cuts;
  for (const auto& interval : timeline) cuts.push_back(interval.start_fs), cuts.push_back(interval.end_fs);
  for (const auto& op : ops) cuts.push_back(op.start_fs), cuts.push_back(op.end_fs);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::size_t at = 0;  // timeline interval holding the current piece
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const TimeFs a = cuts[i], b = cuts[i + 1];
    if (b > totals.run_fs) break;
    while (at < timeline.size() && timeline[at].end_fs <= a) ++at;
    if (at == timeline.size()) break;
    const std::size_t state = timeline[at].state;
    totals.time_at_state_fs[state] += b - a;
    owners.clear();
    for (std::size_t op = 0; op < ops.size(); ++op) {
      if (ops[op].start_fs <= a && ops[op].end_fs >= b && ops[op].end_fs > ops[op].start_fs) owners.push_back(op);
    }
    if (owners.empty()) {
      // Nothing runs: the time belongs to the next op(s) to start, else (after the last op) to the last to end.
      TimeFs next = kNoTime;
      for (const auto& op : ops) {
        if (op.start_fs >= b) next = std::min(next, op.start_fs);
      }
      TimeFs last = 0;
      for (const auto& op : ops) last = std::max(last, op.end_fs);
      for (std::size_t op = 0; op < ops.size(); ++op) {
        if (next != kNoTime ? ops[op].start_fs == next : ops[op].end_fs == last) owners.push_back(op);
      }
    }
    for (const std::size_t op : owners) shares[op][{state, owners.size()}] += b - a;
  }

  for (std::size_t op = 0; op < ops.size(); ++op) {
    OpEnergy& result = totals.ops[op];
    result.energy.level_j.assign(model_.level_names().size(), 0.0);
    result.duration_fs = ops[op].end_fs - ops[op].start_fs;
    result.time_at_state_fs.assign(state_count, 0);
    for (const auto& [state, activity] : activity_[op]) {
      result.energy += model_.dynamic_energy(activity, states_[state].voltage_v);
      result.flops += total_flops(activity) + activity.lane_flops;
    }
    for (const auto& [key, fs] : shares[op]) {
      const auto [state, sharers] = key;
      const double seconds = static_cast<double>(fs) * kSecondsPerFs / static_cast<double>(sharers);
      result.energy.compute_static_j += model_.compute_static_w(states_[state].voltage_v) * seconds;
      result.energy.memory_static_j += model_.memory_static_w() * seconds;
    }
    // The op's own life at each state (not its share of it).
    for (const auto& interval : timeline) {
      const TimeFs lo = std::max(interval.start_fs, ops[op].start_fs);
      const TimeFs hi = std::min(interval.end_fs, ops[op].end_fs);
      if (hi > lo) result.time_at_state_fs[interval.state] += hi - lo;
    }
    for (std::size_t state = 0; state + 1 < state_count; ++state) result.throttled_fs += result.time_at_state_fs[state];
    totals.total += result.energy;
  }
  return totals;
}

}  // namespace roofsim
