#pragma once
// Everything power a device needs, built from its hardware parameters in one call: the energy model, the compute
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
#include "sim/config/hardware_params.h"

namespace roofsim {

// The governor's parameters from the config's power section (window and reaction delay rounded to the fs).
[[nodiscard]] GovernorParams governor_params(const HardwareParams& hw);

// Per-op power statistics (issue 8 item 5).
struct OpPowerStats {
  Joules energy_j = 0;
  Joules dynamic_j = 0;
  Joules static_j = 0;
  Watts average_power_w = 0;             // energy / the op's life
  double joules_per_flop = 0;            // energy / executed FLOPs
  std::vector<Seconds> time_at_state_s;  // the op's life at each DVFS state (PowerRunStats::states order)
  Seconds throttled_s = 0;               // below the fastest state
};

struct PowerRunStats {
  Watts cap_w = 0;                // 0: no cap
  std::vector<DvfsState> states;  // ascending clock
  Joules energy_j = 0;
  Watts average_power_w = 0;
  std::vector<Seconds> time_at_state_s;
  std::uint64_t clock_changes = 0;
  std::vector<OpPowerStats> ops;   // op order
  std::vector<PowerSample> trace;  // power and clock over the run (counter tracks of trace.json)

  // True when the governor ever ran below the fastest state (a cap bound): reports add power and clock columns.
  [[nodiscard]] bool throttled() const;
};

class PowerDomain {
 public:
  PowerDomain(const HardwareParams& hw, DramEnergyBasis dram_basis);

  [[nodiscard]] const EnergyModel& model() const { return model_; }
  [[nodiscard]] ClockDomain& clock() { return clock_; }
  [[nodiscard]] const ClockDomain& clock() const { return clock_; }
  // Creates the governor module (call during elaboration, once).
  void elaborate(const DeviceActivity& device);

  // Statistics of the run for ops that lived in `ops` (op order); executed FLOPs come from the ledger.
  [[nodiscard]] PowerRunStats stats(const std::vector<OpInterval>& ops) const;

 private:
  GovernorParams params_;
  EnergyModel model_;
  ClockDomain clock_;
  std::unique_ptr<GovernorModule> governor_;
};

}  // namespace roofsim
