#include "models/power/energy_ledger.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

namespace roofsim {

namespace {

constexpr double kSecondsPerFs = 1e-15;

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

  // Static time, as integers: per op, per (state, number of ops sharing it) the femtoseconds it was charged. A sweep
  // over the cuts keeps the ops running (in op order) instead of testing every op at every cut: a rank of a training
  // step holds thousands of ops and its clock changes state tens of thousands of times.
  std::vector<std::map<std::pair<std::size_t, std::size_t>, TimeFs>> shares(ops.size());
  std::vector<TimeFs> cuts;
  for (const auto& interval : timeline) cuts.push_back(interval.start_fs), cuts.push_back(interval.end_fs);
  for (const auto& op : ops) cuts.push_back(op.start_fs), cuts.push_back(op.end_fs);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  // Ops by start and by end; every start and end is a cut, so an op runs over a piece [a, b) exactly when it started
  // at or before a and has not ended by a (it then ends at b or later).
  std::vector<std::size_t> by_start(ops.size()), by_end(ops.size());
  for (std::size_t op = 0; op < ops.size(); ++op) by_start[op] = by_end[op] = op;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](std::size_t x, std::size_t y) { return ops[x].start_fs < ops[y].start_fs; });
  std::stable_sort(by_end.begin(), by_end.end(),
                   [&](std::size_t x, std::size_t y) { return ops[x].end_fs < ops[y].end_fs; });
  TimeFs last = 0;
  for (const auto& op : ops) last = std::max(last, op.end_fs);
  std::vector<std::size_t> last_to_end;  // in op order
  for (std::size_t op = 0; op < ops.size(); ++op) {
    if (ops[op].end_fs == last) last_to_end.push_back(op);
  }
  std::set<std::size_t> running;
  std::size_t started = 0, ended = 0;
  std::size_t at = 0;  // timeline interval holding the current piece
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const TimeFs a = cuts[i], b = cuts[i + 1];
    if (b > totals.run_fs) break;
    while (at < timeline.size() && timeline[at].end_fs <= a) ++at;
    if (at == timeline.size()) break;
    for (; started < by_start.size() && ops[by_start[started]].start_fs <= a; ++started) {
      const std::size_t op = by_start[started];
      if (ops[op].end_fs > a) running.insert(op);
    }
    for (; ended < by_end.size() && ops[by_end[ended]].end_fs <= a; ++ended) running.erase(by_end[ended]);
    const std::size_t state = timeline[at].state;
    totals.time_at_state_fs[state] += b - a;
    owners.assign(running.begin(), running.end());
    if (owners.empty()) {
      // Nothing runs: the time belongs to the next op(s) to start, else (after the last op) to the last to end.
      if (started < by_start.size()) {
        const TimeFs next = ops[by_start[started]].start_fs;  // the first start after a, so at b or later
        for (std::size_t k = started; k < by_start.size() && ops[by_start[k]].start_fs == next; ++k)
          owners.push_back(by_start[k]);
        std::sort(owners.begin(), owners.end());
      } else {
        owners = last_to_end;
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
    // The op's own life at each state (not its share of it): the timeline's intervals are adjacent and in order.
    auto interval = std::upper_bound(timeline.begin(), timeline.end(), ops[op].start_fs,
                                     [](TimeFs t, const StateInterval& i) { return t < i.end_fs; });
    for (; interval != timeline.end() && interval->start_fs < ops[op].end_fs; ++interval) {
      const TimeFs lo = std::max(interval->start_fs, ops[op].start_fs);
      const TimeFs hi = std::min(interval->end_fs, ops[op].end_fs);
      if (hi > lo) result.time_at_state_fs[interval->state] += hi - lo;
    }
    for (std::size_t state = 0; state + 1 < state_count; ++state) result.throttled_fs += result.time_at_state_fs[state];
    totals.total += result.energy;
  }
  return totals;
}

}  // namespace roofsim
