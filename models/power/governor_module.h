#pragma once
// The power domain's SystemC shell: a thin module that wakes once per governor window (and when a
// decided clock change takes effect), never per cycle, and not at all through a stretch in which the device is idle. At
// each wake it reads the device's cumulative activity per op, charges the difference since the last wake to each op at
// the DVFS state in force (EnergyLedger), records a power and clock sample for the trace, and hands the window's
// average power to the GovernorPolicy; when the policy's change is due it sets the ClockDomain's state, whose listeners
// (the compute units) re-time their work in flight.
//
// Idle stretches: given the device's scheduler, after each wake it asks when the device's work is next due. The windows
// that end by then have no activity (the governor wakes before the device's work of the same instant), so it sleeps
// through them, up to the one whose idle power would make the policy decide a change, and judges them at once when
// it wakes (GovernorPolicy::windows_ended) with one power sample over the stretch: the decisions, the energy and the
// per-window average power are those of a wake per window. A request from outside the device (the network
// completing a collective) that makes its work due earlier wakes the governor at once (WakeWatcher), before the work
// runs. So a second of simulated idle costs a few wakes, not one per window.
//
// Parameters: GovernorParams (the config's power section). Connects to: the device's activity counters
// (DeviceActivity), the EnergyModel, the ClockDomain. Wakes: window ends and decided changes. Statistics: the power
// trace (one sample per interval between wakes) and the energy ledger.
#include <systemc>

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "models/kernel/device_scheduler.h"
#include "models/power/clock_domain.h"
#include "models/power/energy_ledger.h"
#include "models/power/energy_model.h"
#include "models/power/governor_policy.h"
#include "models/power/imposed_course.h"
#include "models/power/power_stats.h"

namespace roofsim {

// What the device did so far, per op: cumulative counts, read at the governor's wakes only.
class DeviceActivity {
 public:
  [[nodiscard]] virtual std::size_t op_count() const = 0;
  // Adds op `op`'s cumulative activity so far into `into` (sized by the EnergyModel).
  virtual void add_op_activity(std::size_t op, Activity& into) const = 0;
  // True once all work is done; `end_fs` is then when the last of it finished.
  [[nodiscard]] virtual bool finished(TimeFs& end_fs) const = 0;
  // False while `op` has not launched: its activity is none yet (the governor's readings pass it by).
  [[nodiscard]] virtual bool launched(std::size_t /*op*/) const { return true; }
  // No op from this index on has launched (the governor's readings stop there).
  [[nodiscard]] virtual std::size_t launched_end() const { return op_count(); }
  // True once `op`'s activity as last read (add_op_activity) is final: it ended, and nothing of it is still spent
  // over time (work on the engines, bytes in flight, a replay, a link transfer).
  [[nodiscard]] virtual bool settled(std::size_t /*op*/) const { return false; }
  // True while activity is spent over time without events of the device's own (a memoized replay, a transfer on the
  // device's links): the device is busy though nothing is due, so the governor judges each window rather than
  // sleeping through the stretch.
  [[nodiscard]] virtual bool replaying(TimeFs /*now_fs*/) const { return false; }

 protected:
  ~DeviceActivity() = default;
};

class GovernorModule : public sc_core::sc_module, private WakeWatcher {
 public:
  // `scheduler`: the device's, through which all its work is woken (null: no idle stretch is skipped).
  GovernorModule(const sc_core::sc_module_name& name, const GovernorParams& params, const EnergyModel& model,
                 ClockDomain& clock, const DeviceActivity& device, DeviceScheduler* scheduler = nullptr);

  // Power and clock over the run, for the trace's counter tracks; the intervals tile [0, end of the run].
  [[nodiscard]] const std::vector<PowerSample>& trace() const { return trace_; }
  // Per-op and total energies for ops that lived in `ops` (op order), after the run.
  [[nodiscard]] EnergyTotals totals(const std::vector<OpInterval>& ops) const;
  [[nodiscard]] TimeFs end_fs() const { return interval_start_fs_; }
  // Closes the power trace's interval at `now_fs` (no earlier than the last close), so that a sample starts there: a
  // memoized op's recording reads the samples over its own time (sim/engine/op_replay.h).
  void mark(TimeFs now_fs) { close_interval(now_fs); }
  // From now on, keeps `op`'s own dynamic energy at each power sample's end, at the top state's voltage (the clock it
  // ran at does not weigh it, as in a recorded op's power profile): the samples over an overlap group hold the
  // group's power, not each member's, and a member's replay spends its counters along this (sim/engine/op_replay.h).
  void follow(std::size_t op);
  // The energies kept for `op` (sample end, energy so far in J, in time order), and no more of them.
  [[nodiscard]] std::vector<std::pair<TimeFs, double>> unfollow(std::size_t op);
  // Runs of the governor's work (its wakes, and the stretches judged when a request woke it).
  [[nodiscard]] std::uint64_t wakes() const { return wakes_; }

  // The policy's state at `now_fs`; an imposed stretch that ends by then is finished first.
  [[nodiscard]] GovernorSnapshot snapshot(TimeFs now_fs);
  [[nodiscard]] const GovernorParams& params() const { return policy_.params(); }
  // From `now_fs` the clock follows `trajectory` and the policy decides nothing; at its end the policy is left in
  // its end state. The device's activity is still read at each change and at the end, so that the ledger books it at
  // the state in force.
  void impose(TimeFs now_fs, const ClockTrajectory& trajectory);
  // Ends an imposed stretch early (other work started that the trajectory does not describe): the policy resumes
  // in the state it had when the stretch began, with a new window from `now_fs`.
  void release(TimeFs now_fs);
  [[nodiscard]] bool imposing() const { return imposed_.active(); }
  // Finishes an imposed stretch that ends by `now_fs` (its wake may come later in the same instant).
  void settle(TimeFs now_fs);
  // Steady-state fast-forward: the longest stretch from `now_fs` that may be skipped without a window deciding,
  // each window measuring the mean of those kept for the up decision (GovernorPolicy::skip_bound_fs); 0 while a
  // change is pending or a stretch is imposed.
  [[nodiscard]] TimeFs skip_bound_fs(TimeFs now_fs) const;
  // `skipped_fs` (at most skip_bound_fs) skipped at `now_fs` (GovernorPolicy::skip_windows).
  void skip_windows(TimeFs now_fs, TimeFs skipped_fs);
  // A stretch skipped through the change that ends skip_bound_fs's stretch (GovernorPolicy::through_bound, with the
  // kept mean); none while a stretch is imposed.
  [[nodiscard]] std::optional<GovernorPolicy::Through> through_bound(TimeFs now_fs) const;
  // Whole periods of a cycle of the policy, `skipped_fs` in all, skipped at `now_fs` (GovernorPolicy::skip_periods);
  // false, and nothing skipped, while a change is pending or a stretch is imposed.
  [[nodiscard]] bool skip_periods(TimeFs now_fs, TimeFs skipped_fs);
  // `skipped_fs` skipped through that change at `now_fs` (GovernorPolicy::skip_through): the clock moves to the new
  // state now, since what runs after the skip runs after the change.
  void skip_through(TimeFs now_fs, TimeFs skipped_fs);

 private:
  void wake();
  void close_interval(TimeFs end_fs);
  // Closes the interval at `end_fs`, a window end, and hands the policy the windows since its window start.
  void judge_windows(TimeFs end_fs);
  // After a wake: arms the next one, or sleeps through the windows in which the device is idle.
  void plan(TimeFs now_fs);
  void arm_at(TimeFs at_fs, TimeFs now_fs);
  void wake_asked(TimeFs at_fs) override;
  // What a window without activity measures at the current state.
  [[nodiscard]] PowerSplit idle_split() const;
  [[nodiscard]] PowerSplit split_of(const EnergyBreakdown& dynamic, Volts voltage, Seconds seconds) const;
  // The average power over the policy's window [window start, end_fs): the time-weighted mean of the power samples
  // over it (one sample when no imposed stretch or skip split the window).
  [[nodiscard]] PowerSplit window_power(TimeFs end_fs) const;
  // Drops the armed wake and any sleep, then arms the next wake from the policy or the imposed stretch.
  void rearm(TimeFs now_fs);
  void advance_imposed(TimeFs now_fs);
  void finish_imposed(TimeFs now_fs);

  const EnergyModel& model_;
  ClockDomain& clock_;
  const DeviceActivity& device_;
  DeviceScheduler* scheduler_;
  GovernorPolicy policy_;
  EnergyLedger ledger_;
  std::vector<Activity> seen_;  // per op: cumulative activity at the last wake
  std::vector<bool> settled_;   // per op: its activity is final (DeviceActivity::settled), read no more
  std::size_t first_open_ = 0;  // ops before it are all settled
  Activity scratch_;
  TimeFs interval_start_fs_ = 0;
  std::vector<PowerSample> trace_;
  sc_core::sc_event wake_event_;
  std::uint64_t wakes_ = 0;
  TimeFs planned_fs_ = kNever;  // while asleep: the wake armed (kNever: none, only a request wakes it)
  bool done_ = false;
  ImposedCourse imposed_;  // an imposed stretch (impose())
  struct Followed {
    std::size_t op = 0;
    double energy_j = 0;
    std::vector<std::pair<TimeFs, double>> energies;
  };
  std::vector<Followed> followed_;  // follow(): a few ops at a time (an overlap group's members)
};

}  // namespace roofsim
