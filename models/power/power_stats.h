#pragma once
// What the power domain reports after a run: per op and in total, plus the power and clock trace.
// Plain data without SystemC, so that run results and report writers can carry it.
#include <cstdint>
#include <vector>

#include "models/power/clock_domain.h"
#include "models/power/governor_policy.h"
#include "models/power/power_params.h"
#include "sim/core/units.h"

namespace roofsim {

// One interval of the power trace: between two wakes, at one DVFS state.
struct PowerSample {
  TimeFs start_fs = 0;
  TimeFs end_fs = 0;
  std::size_t state = 0;
  Hertz clock_hz = 0;
  Volts voltage_v = 0;
  PowerSplit power;  // average over the interval
  Joules energy_j = 0;
};

// Per-op power statistics.
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
  std::vector<OpPowerStats> ops;     // op order
  std::vector<PowerSample> trace;    // power and clock over the run (counter tracks of trace.json)
  std::uint64_t governor_wakes = 0;  // the governor's runs: about one per window of activity, a few per idle stretch

  // True when the governor ever ran below the fastest state (a cap bound): reports add power and clock columns.
  [[nodiscard]] bool throttled() const;
};

}  // namespace roofsim
