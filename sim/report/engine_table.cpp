#include "sim/report/engine_table.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "sim/results/gap_attribution.h"
#include "sim/results/run_report.h"

namespace roofsim {

namespace {

// Per op: the binding ceiling's time, the simulated time and the gap between them by cause, in microseconds.
void write_gap_table(const Report& report, const DeviceRoof& device, const RunResult& result, std::ostream& out) {
  // The columns are every cause any op has (ops measure different ones: DRAM losses only where the detailed model
  // served them, throttling only where the clock was below nominal), in first-seen order; an op without one shows 0.
  std::vector<std::string> names;
  std::vector<GapAttribution> gaps(report.ops.size());
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    if (!result.ops.at(i).simulated) continue;
    gaps[i] = op_gap(report.ops[i], device, result.ops[i], result.units);
    for (const auto& cause : gaps[i].causes) {
      if (std::find(names.begin(), names.end(), cause.name) == names.end()) names.push_back(cause.name);
    }
  }
  // The two balancing causes last.
  for (const char* last : {"ahead_of_ceiling", "unattributed"}) {
    const auto found = std::find(names.begin(), names.end(), last);
    if (found != names.end()) std::rotate(found, found + 1, names.end());
  }
  if (names.empty()) return;
  out << "\ngap to the binding ceiling by cause, us (the causes add up to the gap)\n";
  std::string header = fmt::format("{:<28} {:>10} {:>10} {:>10}", "op", "ceiling", "simulated", "gap");
  // Short column labels; report.json and ops.csv carry the full names.
  const auto label = [](const std::string& name) -> std::string {
    if (name == "bandwidth_queueing") return "bw queue";
    if (name == "dependencies_dispatch") return "dispatch";
    if (name == "ahead_of_ceiling") return "ahead";
    if (name == "unattributed") return "unattrib";
    return name;
  };
  // A column is as wide as its label (at least 10), so that no cause name is cut.
  std::vector<std::size_t> widths;
  for (const auto& name : names) {
    widths.push_back(std::max<std::size_t>(10, label(name).size()));
    header += fmt::format(" {:>{}}", label(name), widths.back());
  }
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    if (!result.ops.at(i).simulated) continue;
    const auto& gap = gaps[i];
    out << fmt::format("{:<28} {:>10.3f} {:>10.3f} {:>10.3f}", report.ops[i].name, gap.ceiling_time_s * 1e6,
                       gap.sim_time_s * 1e6, gap.gap_s * 1e6);
    for (std::size_t c = 0; c < names.size(); ++c) {
      const auto found = std::find_if(gap.causes.begin(), gap.causes.end(),
                                      [&](const GapCause& cause) { return cause.name == names[c]; });
      out << fmt::format(" {:>{}.3f}", found == gap.causes.end() ? 0.0 : found->seconds * 1e6, widths[c]);
    }
    out << "\n";
  }
}

}  // namespace

void write_engine_table(const Report& report, const DeviceRoof& device, const RunResult& result, std::ostream& out) {
  bool above_dram_line = false;
  out << fmt::format("\nsimulated {:.3f} us in total; unit-time of each op's span by cause, % of units x span\n",
                     result.sim_time_s * 1e6);
  const std::string header =
      fmt::format("{:<28} {:>10} {:>11} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {}", "op", "efficiency",
                  "tiles", "waves", "busy", "lat", "bw", "deps", "launch", "disp", "tail", "tiling");
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    const auto& op = report.ops[i];
    const auto& s = result.ops.at(i);
    if (!s.simulated) {
      out << fmt::format("{:<28} {}\n", op.name, s.note);
      continue;
    }
    const double whole = s.span_s * static_cast<double>(result.units);
    above_dram_line = above_dram_line || (run_efficiency(op, device) > 1.0 && op.roofline.binding == Variant::dram);
    const auto pct = [whole](double part) { return whole > 0 ? 100.0 * part / whole : 0.0; };
    out << fmt::format(
        "{:<28} {:>9.1f}% {:>11} {:>6} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f}  {}\n", op.name,
        100.0 * run_efficiency(op, device), s.tiles, s.waves, pct(s.busy_s), pct(s.wait_memory_latency_s),
        pct(s.wait_bandwidth_s), pct(s.wait_dependencies_s), pct(s.wait_launch_s), pct(s.wait_dispatch_s),
        pct(s.tail_s), s.tiling);
  }
  write_gap_table(report, device, result, out);
  if (above_dram_line && result.dram_model == "simple") {
    out << "note: efficiency above 100% against the DRAM-aware ceiling: the simple channel model moves data at the pin "
           "rate, above the all-row-hit line (refresh and row timing), which dram.model = \"detailed\" simulates\n";
  }
}

}  // namespace roofsim
