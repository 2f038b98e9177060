#pragma once
// The power domain's SystemC shell: a thin module that wakes once per governor window (and when a
// decided clock change takes effect), never per cycle. At each wake it reads the device's cumulative activity per
// op, charges the difference since the last wake to each op at the DVFS state in force (EnergyLedger), records a
// power and clock sample for the trace, and hands the window's average power to the GovernorPolicy; when the policy's
// change is due it sets the ClockDomain's state, whose listeners (the compute units) re-time their work in flight.
//
// Parameters: GovernorParams (the config's power section). Connects to: the device's activity counters
// (DeviceActivity), the EnergyModel, the ClockDomain. Wakes: window ends and decided changes. Statistics: the power
// trace (one sample per interval between wakes) and the energy ledger.
#include <systemc>

#include <cstddef>
#include <vector>

#include "models/power/clock_domain.h"
#include "models/power/energy_ledger.h"
#include "models/power/energy_model.h"
#include "models/power/governor_policy.h"
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

 protected:
  ~DeviceActivity() = default;
};

class GovernorModule : public sc_core::sc_module {
 public:
  GovernorModule(const sc_core::sc_module_name& name, const GovernorParams& params, const EnergyModel& model,
                 ClockDomain& clock, const DeviceActivity& device);

  // Power and clock over the run, for the trace's counter tracks; the intervals tile [0, end of the run].
  [[nodiscard]] const std::vector<PowerSample>& trace() const { return trace_; }
  // Per-op and total energies for ops that lived in `ops` (op order), after the run.
  [[nodiscard]] EnergyTotals totals(const std::vector<OpInterval>& ops) const;
  [[nodiscard]] TimeFs end_fs() const { return interval_start_fs_; }
  [[nodiscard]] std::uint64_t wakes() const { return wakes_; }

 private:
  void wake();
  void close_interval(TimeFs end_fs);
  void arm(TimeFs now_fs);

  const EnergyModel& model_;
  ClockDomain& clock_;
  const DeviceActivity& device_;
  GovernorPolicy policy_;
  EnergyLedger ledger_;
  std::vector<Activity> seen_;  // per op: cumulative activity at the last wake
  Activity scratch_;
  TimeFs interval_start_fs_ = 0;
  std::vector<PowerSample> trace_;
  sc_core::sc_event wake_event_;
  std::uint64_t wakes_ = 0;
  bool done_ = false;
};

}  // namespace roofsim
