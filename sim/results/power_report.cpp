#include "sim/results/power_report.h"

#include <algorithm>
#include <string>

#include "sim/config/quantity.h"

namespace roofsim {

std::string clock_label(Hertz clock_hz) {
  // Four digits: a board's DVFS states are 15 MHz apart, and three would print 1.905 GHz as 1.91 GHz.
  return format_si(clock_hz, "Hz", 4);
}

Hertz busy_clock_hz(const OpRunStats& op, const PowerRunStats& power) {
  double busy = 0, weighted = 0;
  for (std::size_t s = 0; s < op.busy_at_state_s.size() && s < power.states.size(); ++s) {
    busy += op.busy_at_state_s[s];
    weighted += op.busy_at_state_s[s] * power.states[s].clock_hz;
  }
  return busy > 0 ? weighted / busy : 0.0;
}

Seconds throttling_loss_s(const OpRunStats& op, const RunResult& result) {
  return op.throttle_s / static_cast<double>(std::max<std::uint64_t>(result.units, 1));
}

void add_power_fields(Report& report, const RunResult& result) {
  const auto& power = result.power;
  // Times at each DVFS state as {clock_hz, time_s} entries, fastest clock first: a clock is a value, not a key.
  const auto at_clocks = [&](const std::vector<Seconds>& seconds_at_state) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (std::size_t s = power.states.size(); s-- > 0;) {
      if (s < seconds_at_state.size() && seconds_at_state[s] > 0) {
        entries.push_back({{"clock_hz", power.states[s].clock_hz}, {"time_s", seconds_at_state[s]}});
      }
    }
    return entries;
  };
  const auto run_at_clock = at_clocks(power.time_at_state_s);
  report.extra["power"] = {{"cap_w", power.cap_w},
                           {"energy_j", power.energy_j},
                           {"average_power_w", power.average_power_w},
                           {"clock_changes", power.clock_changes},
                           {"final_clock_hz", power.trace.empty() ? 0.0 : power.trace.back().clock_hz},
                           {"time_at_clock_s", run_at_clock}};
  for (std::size_t i = 0; i < report.ops.size() && i < power.ops.size(); ++i) {
    auto& row = report.ops[i];
    const auto& op = power.ops[i];
    row.energy_j = op.energy_j;
    const auto at_clock = at_clocks(op.time_at_state_s);
    const OpRunStats* stats = i < result.ops.size() ? &result.ops[i] : nullptr;
    const auto busy_at_clock = at_clocks(stats != nullptr ? stats->busy_at_state_s : std::vector<Seconds>{});
    row.extra["power"] = {{"energy_j", op.energy_j},
                          {"dynamic_j", op.dynamic_j},
                          {"static_j", op.static_j},
                          {"average_power_w", op.average_power_w},
                          {"joules_per_flop", op.joules_per_flop},
                          {"throttled_s", op.throttled_s},
                          {"throttling_loss_s", stats != nullptr ? throttling_loss_s(*stats, result) : 0.0},
                          {"busy_clock_hz", stats != nullptr ? busy_clock_hz(*stats, power) : 0.0},
                          {"time_at_clock_s", at_clock},
                          {"unit_busy_at_clock_s", busy_at_clock}};
  }
}

}  // namespace roofsim
