#include "sim/engine/power_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config/quantity.h"

namespace roofsim {

namespace {

std::string clock_label(Hertz clock_hz) {
  return format_si(clock_hz, "Hz");
}

// The op's engines' mean clock over their busy time (busy-weighted over the DVFS states); 0 without busy time.
Hertz busy_clock_hz(const OpRunStats& op, const PowerRunStats& power) {
  double busy = 0, weighted = 0;
  for (std::size_t s = 0; s < op.busy_at_state_s.size() && s < power.states.size(); ++s) {
    busy += op.busy_at_state_s[s];
    weighted += op.busy_at_state_s[s] * power.states[s].clock_hz;
  }
  return busy > 0 ? weighted / busy : 0.0;
}

// The op's time lost to throttling as a share of its simulated time (unit-time / units, as the gap counts it).
Seconds lost_s(const OpRunStats& op, const RunResult& result) {
  return op.throttle_s / static_cast<double>(std::max<std::uint64_t>(result.units, 1));
}

}  // namespace

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
                          {"throttling_loss_s", stats != nullptr ? lost_s(*stats, result) : 0.0},
                          {"busy_clock_hz", stats != nullptr ? busy_clock_hz(*stats, power) : 0.0},
                          {"time_at_clock_s", at_clock},
                          {"unit_busy_at_clock_s", busy_at_clock}};
  }
}

void write_power_table(const Report& report, const RunResult& result, std::ostream& out) {
  const auto& power = result.power;
  const bool throttled = power.throttled();
  // The clocks the run visited, fastest first.
  std::vector<std::size_t> visited;
  for (std::size_t s = power.time_at_state_s.size(); s-- > 0;) {
    if (power.time_at_state_s[s] > 0) visited.push_back(s);
  }
  out << fmt::format("\nenergy {:.4g} J, average power {:.1f} W{}", power.energy_j, power.average_power_w,
                     power.cap_w > 0 ? fmt::format(" under a {} cap", format_si(power.cap_w, "W")) : std::string());
  out << fmt::format("; {} clock change{}\n", power.clock_changes, power.clock_changes == 1 ? "" : "s");
  std::string header = fmt::format("{:<28} {:>9} {:>11} {:>8}", "op", "power W", "energy mJ", "pJ/FLOP");
  if (throttled) {
    header += fmt::format(" {:>9} {:>9} {:>13}", "clock GHz", "lost us", "throttled us");
    for (const auto s : visited) header += fmt::format(" {:>12}", "us@" + clock_label(power.states[s].clock_hz));
  }
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (std::size_t i = 0; i < report.ops.size() && i < power.ops.size(); ++i) {
    const auto& op = power.ops[i];
    std::string line = fmt::format("{:<28} {:>9.1f} {:>11.4g} {:>8.3g}", report.ops[i].name, op.average_power_w,
                                   op.energy_j * 1e3, op.joules_per_flop * 1e12);
    if (throttled) {
      const auto& stats = result.ops.at(i);
      const Hertz clock = busy_clock_hz(stats, power);
      line += clock > 0 ? fmt::format(" {:>9.3f}", clock / 1e9) : fmt::format(" {:>9}", "-");
      line += fmt::format(" {:>9.1f} {:>13.1f}", lost_s(stats, result) * 1e6, op.throttled_s * 1e6);
      for (const auto s : visited) {
        line += fmt::format(" {:>12.1f}", s < op.time_at_state_s.size() ? op.time_at_state_s[s] * 1e6 : 0.0);
      }
    }
    out << line << "\n";
  }
}

}  // namespace roofsim
