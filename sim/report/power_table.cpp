#include "sim/report/power_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config/quantity.h"
#include "sim/results/power_report.h"

namespace roofsim {

void write_power_table(const Report& report, const RunResult& result, std::ostream& out) {
  const auto& power = result.power;
  const bool throttled = power.throttled();
  // A column for each of the clocks that held most of the run, fastest first, and one for all the others: with a
  // board's DVFS table (states 15 MHz apart) a capped run passes through many clocks on its way down, and a column
  // for each would bury the few it settles at. A row's clock columns still add up to the op's time.
  constexpr std::size_t kClockColumns = 3;
  std::vector<std::size_t> visited;
  for (std::size_t s = 0; s < power.time_at_state_s.size(); ++s) {
    if (power.time_at_state_s[s] > 0) visited.push_back(s);
  }
  std::stable_sort(visited.begin(), visited.end(),
                   [&](std::size_t a, std::size_t b) { return power.time_at_state_s[a] > power.time_at_state_s[b]; });
  const bool others = visited.size() > kClockColumns;
  if (others) visited.resize(kClockColumns);
  std::sort(visited.begin(), visited.end(), std::greater<>());
  out << fmt::format("\nenergy {:.4g} J, average power {:.1f} W{}", power.energy_j, power.average_power_w,
                     power.cap_w > 0 ? fmt::format(" under a {} cap", format_si(power.cap_w, "W")) : std::string());
  out << fmt::format("; {} clock change{}\n", power.clock_changes, power.clock_changes == 1 ? "" : "s");
  std::string header = fmt::format("{:<28} {:>9} {:>11} {:>8}", "op", "power W", "energy mJ", "pJ/FLOP");
  if (throttled) {
    header += fmt::format(" {:>9} {:>9} {:>13}", "clock GHz", "lost us", "throttled us");
    for (const auto s : visited) header += fmt::format(" {:>12}", "us@" + clock_label(power.states[s].clock_hz));
    if (others) header += fmt::format(" {:>12}", "us@other");
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
      line += fmt::format(" {:>9.1f} {:>13.1f}", throttling_loss_s(stats, result) * 1e6, op.throttled_s * 1e6);
      for (const auto s : visited) {
        line += fmt::format(" {:>12.1f}", s < op.time_at_state_s.size() ? op.time_at_state_s[s] * 1e6 : 0.0);
      }
      if (others) {
        Seconds other_s = 0;
        for (std::size_t s = 0; s < op.time_at_state_s.size(); ++s) {
          if (std::find(visited.begin(), visited.end(), s) == visited.end()) other_s += op.time_at_state_s[s];
        }
        line += fmt::format(" {:>12.1f}", other_s * 1e6);
      }
    }
    out << line << "\n";
  }
}

}  // namespace roofsim
