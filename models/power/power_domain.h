#pragma once
// Everything power a device needs, built from its power parameters in one call: the energy model, the compute
// clock domain with its DVFS states, and (at elaboration) the governor module. The device gives it a view of its
// activity counters; the compute units read the clock domain and register with it for re-timing. After the run it
// turns the ledger into the statistics the reports read (PowerRunStats).
#include <memory>
#include <string>
#include <vector>

#include "models/power/clock_domain.h"
#include "models/power/energy_ledger.h"
#include "models/power/energy_model.h"
#include "models/power/governor_module.h"
#include "models/power/governor_policy.h"
#include "models/power/power_params.h"
#include "models/power/power_stats.h"

namespace roofsim {

// The governor's parameters from the config's power section (window and reaction delay rounded to the fs).
[[nodiscard]] GovernorParams governor_params(const PowerDomainParams& params);

class PowerDomain {
 public:
  PowerDomain(const PowerDomainParams& params, DramEnergyBasis dram_basis);

  [[nodiscard]] const EnergyModel& model() const { return model_; }
  [[nodiscard]] ClockDomain& clock() { return clock_; }
  [[nodiscard]] const ClockDomain& clock() const { return clock_; }
  // Creates the governor module (call during elaboration, once). `scheduler`: the device's, which lets the governor
  // sleep through idle stretches (null: it wakes every window).
  void elaborate(const DeviceActivity& device, DeviceScheduler* scheduler = nullptr);

  // The governor (after elaborate()), for memoized replay and fast-forward (sim/engine/op_replay.h).
  [[nodiscard]] GovernorModule& governor() { return *governor_; }

  // Statistics of the run for ops that lived in `ops` (op order); executed FLOPs come from the ledger.
  [[nodiscard]] PowerRunStats stats(const std::vector<OpInterval>& ops) const;

 private:
  GovernorParams params_;
  EnergyModel model_;
  ClockDomain clock_;
  std::unique_ptr<GovernorModule> governor_;
};

}  // namespace roofsim
