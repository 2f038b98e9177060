#include "sim/results/power_report.h"

#include <algorithm>
#include <string>

#include "sim/config/quantity.h"

namespace roofsim {

std::string clock_label(Hertz clock_hz) {
  return format_si(clock_hz, "Hz");
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
  nlohmann::ordered_json run_at_clock = nlohmann::ordered_json::object();
  for (std::size_t s = power.states.size(); s-- > 0;) {
    if (s < power.time_at_state_s.size() && power.time_at_state_s[s] > 0) {
      run_at_clock[clock_label(power.states[s].clock_hz)] = power.time_at_state_s[s];
    }
  }
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
    nlohmann::ordered_json at_clock = nlohmann::ordered_json::object();
    for (std::size_t s = power.states.size(); s-- > 0;) {
      if (s < op.time_at_state_s.size() && op.time_at_state_s[s] > 0) {
        at_clock[clock_label(power.states[s].clock_hz)] = op.time_at_state_s[s];
      }
    }
    nlohmann::ordered_json busy_at_clock = nlohmann::ordered_json::object();
    const OpRunStats* stats = i < result.ops.size() ? &result.ops[i] : nullptr;
    if (stats != nullptr) {
      for (std::size_t s = power.states.size(); s-- > 0;) {
        if (s < stats->busy_at_state_s.size() && stats->busy_at_state_s[s] > 0) {
          busy_at_clock[clock_label(power.states[s].clock_hz)] = stats->busy_at_state_s[s];
        }
      }
    }
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
