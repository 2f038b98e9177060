#include "sim/report/engine_table.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "sim/results/gap_attribution.h"
#include "sim/results/run_report.h"

namespace roofsim {

namespace {

// A value that prints as zero at `decimals` places prints as 0, never -0.000.
double fixed_zero(double value, int decimals) {
  return std::abs(value) < 0.5 * std::pow(10.0, -decimals) ? 0.0 : value;
}

// Op names in the first column of 28 characters; a longer one is cut, its end marked '~'.
std::string fitted_name(const std::string& name) {
  return name.size() <= 28 ? name : name.substr(0, 27) + "~";
}

// Per op: the binding ceiling's time, the simulated time and the gap between them by cause, in microseconds.
void write_gap_table(const Report& report, const DeviceRoof& device, const RunResult& result, bool wide,
                     std::ostream& out) {
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
  // Short column labels; report.json and ops.csv carry the full names.
  const auto label = [](const std::string& name) -> std::string {
    if (name == "bandwidth_queueing") return "bw queue";
    if (name == "dependencies_dispatch") return "dispatch";
    if (name == "ahead_of_ceiling") return "ahead";
    if (name == "unattributed") return "unattrib";
    return name;
  };
  const auto column_width = [&](const std::string& name) { return 1 + std::max<std::size_t>(10, label(name).size()); };
  // Within kConsoleColumns: the causes with the most time over all ops that fit (in their order), the rest summed as
  // "other"; --wide shows them all.
  std::vector<std::string> others;
  std::size_t all_width = 28 + 3 * 11;
  for (const auto& name : names) all_width += column_width(name);
  if (!wide && all_width > kConsoleColumns) {
    std::vector<std::pair<double, std::string>> totals;
    for (const auto& name : names) {
      double total = 0;
      for (const auto& gap : gaps) {
        for (const auto& cause : gap.causes) total += cause.name == name ? std::abs(cause.seconds) : 0.0;
      }
      totals.emplace_back(total, name);
    }
    std::stable_sort(totals.begin(), totals.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::size_t width = 28 + 3 * 11 + column_width("other");
    std::vector<std::string> kept;
    for (const auto& [total, name] : totals) {
      if (width + column_width(name) > kConsoleColumns) continue;
      width += column_width(name);
      kept.push_back(name);
    }
    std::vector<std::string> shown;
    for (const auto& name : names) {
      if (std::find(kept.begin(), kept.end(), name) != kept.end()) {
        shown.push_back(name);
      } else {
        others.push_back(name);
      }
    }
    shown.emplace_back("other");
    names = std::move(shown);
  }
  out << "\ngap to the binding ceiling by cause, us (the causes add up to the gap" +
             std::string(others.empty() ? ")" : "; --wide shows every cause)") + "\n";
  std::string header = fmt::format("{:<28} {:>10} {:>10} {:>10}", "op", "ceiling", "simulated", "gap");
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
    out << fmt::format("{:<28} {:>10.3f} {:>10.3f} {:>10.3f}", fitted_name(report.ops[i].name),
                       gap.ceiling_time_s * 1e6, gap.sim_time_s * 1e6, fixed_zero(gap.gap_s * 1e6, 3));
    for (std::size_t c = 0; c < names.size(); ++c) {
      double seconds = 0;
      for (const auto& cause : gap.causes) {
        const bool in_other =
            names[c] == "other" && std::find(others.begin(), others.end(), cause.name) != others.end();
        if (cause.name == names[c] || in_other) seconds += cause.seconds;
      }
      out << fmt::format(" {:>{}.3f}", fixed_zero(seconds * 1e6, 3), widths[c]);
    }
    out << "\n";
  }
}

}  // namespace

void write_engine_table(const Report& report, const DeviceRoof& device, const RunResult& result, std::ostream& out,
                        const TableOptions& options) {
  bool above_dram_line = false;
  // Each op's shares are of its units' time from its launch to its end (the op's simulated time); the time it waited
  // for its inputs before that is `queued`, in microseconds, so that a chain of ops does not read as mostly waiting.
  out << fmt::format(
      "\nsimulated {:.3f} us in total; units' time from each op's launch to its end, %; queued_us: "
      "before launch\n",
      result.sim_time_s * 1e6);
  std::string header =
      fmt::format("{:<28} {:>10} {:>11} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>10}", "op", "efficiency", "tiles",
                  "waves", "busy", "lat", "bw", "launch", "disp", "tail", "queued_us");
  if (options.wide) header += "  tiling";
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    const auto& op = report.ops[i];
    const auto& s = result.ops.at(i);
    if (!s.simulated) {
      out << fmt::format("{:<28} {}\n", fitted_name(op.name), s.note);
      continue;
    }
    const double units = static_cast<double>(std::max<std::uint64_t>(result.units, 1));
    const double whole = s.sim_time_s * units;
    above_dram_line = above_dram_line || (run_efficiency(op, device) > 1.0 && op.roofline.binding == Variant::dram);
    const auto pct = [whole](double part) { return whole > 0 ? 100.0 * part / whole : 0.0; };
    std::string line =
        fmt::format("{:<28} {:>9.1f}% {:>11} {:>6} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f} {:>6.1f} {:>10.3f}",
                    fitted_name(op.name), 100.0 * run_efficiency(op, device), s.tiles, s.waves, pct(s.busy_s),
                    pct(s.wait_memory_latency_s), pct(s.wait_bandwidth_s), pct(s.wait_launch_s), pct(s.wait_dispatch_s),
                    pct(s.tail_s), fixed_zero(s.wait_dependencies_s / units * 1e6, 3));
    if (options.wide) line += "  " + s.tiling;
    out << line << "\n";
  }
  write_gap_table(report, device, result, options.wide, out);
  if (above_dram_line && result.dram_model == "simple") {
    out << "note: efficiency above 100% against the DRAM-aware ceiling: the simple channel model moves data at the pin "
           "rate, above the all-row-hit line (refresh and row timing), which dram.model = \"detailed\" simulates\n";
  }
}

}  // namespace roofsim
