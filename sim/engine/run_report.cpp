#include "sim/engine/run_report.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "sim/engine/gap_attribution.h"
#include "sim/engine/power_report.h"
#include "sim/graph/lowering.h"

namespace roofsim {

double run_efficiency(const OpReport& op, const DeviceRoof& device) {
  if (!op.sim_time_s || *op.sim_time_s <= 0) return 0.0;
  if (op.useful_flops > 0) {
    const double ceiling = op.attainable_flops_per_s();
    return ceiling > 0 ? static_cast<double>(op.useful_flops) / ceiling / *op.sim_time_s : 0.0;
  }
  if (device.main_bandwidth_bytes_per_s <= 0) return 0.0;
  const double transfer_s = static_cast<double>(op.bytes_at(device.main_memory)) / device.main_bandwidth_bytes_per_s;
  return transfer_s / *op.sim_time_s;
}

// The binding ceiling's time for an op: its useful FLOPs at the ceiling, or for an op without FLOPs the main
// memory's transfer time (as run_efficiency does).
Seconds ceiling_time_s(const OpReport& op, const DeviceRoof& device) {
  if (op.useful_flops > 0) {
    const double ceiling = op.attainable_flops_per_s();
    return ceiling > 0 ? static_cast<double>(op.useful_flops) / ceiling : 0.0;
  }
  if (device.main_bandwidth_bytes_per_s <= 0) return 0.0;
  return static_cast<double>(op.bytes_at(device.main_memory)) / device.main_bandwidth_bytes_per_s;
}

GapAttribution op_gap(const OpReport& op, const DeviceRoof& device, const OpRunStats& stats, std::uint64_t units) {
  // The units' time over [launch, end] by cause, as a share of the op's simulated time (run_result.h).
  const double n = static_cast<double>(std::max<std::uint64_t>(units, 1));
  GapInput input;
  input.sim_time_s = stats.sim_time_s;
  input.ceiling_time_s = ceiling_time_s(op, device);
  input.bound_by = op.roofline.bound_by;
  input.causes = {{"compute", stats.busy_s / n},
                  {"latency", stats.wait_memory_latency_s / n},
                  {"bandwidth_queueing", stats.wait_bandwidth_s / n},
                  {"tail", stats.tail_s / n},
                  {"dependencies_dispatch", stats.wait_dispatch_s / n},
                  {"launch", stats.wait_launch_s / n}};
  if (stats.dram.measured) {
    // The detailed DRAM's losses for the op's requests, carved out of the bandwidth queueing they were counted in
    // (scaled down together when they exceed it, so the shares still add up to the simulated time).
    const auto& d = stats.dram;
    const double dram_lost = d.row_miss_loss_s + d.refresh_loss_s + d.turnaround_loss_s;
    auto& queueing = input.causes[2].seconds;
    const double scale = dram_lost > queueing && dram_lost > 0 ? queueing / dram_lost : 1.0;
    queueing -= dram_lost * scale;
    input.causes.push_back({"dram_row_misses", d.row_miss_loss_s * scale});
    input.causes.push_back({"dram_refresh", d.refresh_loss_s * scale});
    input.causes.push_back({"dram_turnarounds", d.turnaround_loss_s * scale});
  }
  if (stats.throttle_s > 0) {
    // Throttling (issue 8): the busy time the op's steps took beyond the nominal clock's, measured per DVFS state
    // (clock_domain.h, throttling_loss_s), carved out of the compute share it was counted in.
    auto& compute = input.causes[0].seconds;
    const double throttled = std::min(compute, stats.throttle_s / n);
    compute -= throttled;
    input.causes.push_back({"throttling", throttled});
  }
  return attribute_gap(input);
}

Report make_run_report(const Workload& workload, const HardwareParams& hardware, const DeviceRoof& device,
                       const RunResult& result) {
  Report report;
  report.command = "run";
  report.bytes_basis = "simulated";
  report.hardware_name = hardware.name;
  report.hardware_file = hardware.file;
  report.workload_name = workload.name;
  report.workload_file = workload.file;
  for (const auto& level : device.levels) report.levels.push_back(level.name);
  report.main_memory = device.main_memory;
  report.roofs = device_lines(device);
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const OpRunStats& stats = result.ops.at(i);
    OpReport row;
    row.name = op.name;
    row.kind = stats.kind;
    row.dtype = op.dtype;
    const auto* engine = op_engine(op, hardware.compute);
    row.engine = engine != nullptr ? engine->name : op.engine;
    row.useful_flops = stats.useful_flops;
    row.executed_flops = stats.simulated ? stats.executed_flops : 0;
    for (const auto& [level, bytes] : stats.bytes) row.bytes.push_back(LevelBytes{level, bytes});
    row.network_bytes = op.network_bytes;
    // The detailed DRAM model measures h on the op's own requests; the channel model has no rows, so there the
    // analytic value stands.
    row.row_hit_rate = stats.dram.measured ? stats.dram.row_hit_rate : op.analytic_row_hit_rate;
    RooflineInput input;
    input.flops = row.useful_flops;
    input.bytes = row.bytes;
    input.row_hit_rate = row.row_hit_rate;
    input.network_bytes = row.network_bytes;
    input.dtype = op.dtype;
    input.engine = row.engine;
    row.roofline = evaluate_roofline(device, input);
    auto& extra = row.extra;
    extra["simulated"] = stats.simulated;
    if (!stats.simulated) {
      extra["note"] = stats.note;
      row.sim_time_s = stats.sim_time_s;  // 0 on a single device; the wait for the network in a cluster run
      report.ops.push_back(std::move(row));
      continue;
    }
    row.sim_time_s = stats.sim_time_s;
    row.achieved_flops_per_s = stats.achieved_flops_per_s;
    extra["efficiency"] = run_efficiency(row, device);
    extra["tiling"] = stats.tiling;
    extra["tiles"] = stats.tiles;
    extra["waves"] = stats.waves;
    extra["launch_s"] = stats.launch_s;
    extra["end_s"] = stats.end_s;
    extra["unit_time_s"] = {{"span_x_units", stats.span_s * static_cast<double>(result.units)},
                            {"busy", stats.busy_s},
                            {"wait_memory_latency", stats.wait_memory_latency_s},
                            {"wait_bandwidth", stats.wait_bandwidth_s},
                            {"wait_dependencies", stats.wait_dependencies_s},
                            {"wait_launch", stats.wait_launch_s},
                            {"wait_dispatch", stats.wait_dispatch_s},
                            {"tail", stats.tail_s}};
    if (stats.dram.measured) {
      const auto& d = stats.dram;
      extra["dram"] = {
          {"row_hit_rate", d.row_hit_rate},
          {"refresh_share", d.refresh_share},
          {"efficiency", d.efficiency},
          {"ceiling_bandwidth_B_per_s", d.ceiling_bytes_per_s},
          {"bursts", d.bursts},
          {"row_opens", d.row_opens},
          {"turnarounds", d.turnarounds},
          {"commands",
           {{"act", d.acts},
            {"pre", d.pres},
            {"rd", d.reads},
            {"wr", d.writes},
            {"ref_all_bank", d.refs_all_bank},
            {"ref_per_bank", d.refs_per_bank}}},
          {"loss_s",
           {{"row_misses", d.row_miss_loss_s}, {"refresh", d.refresh_loss_s}, {"turnarounds", d.turnaround_loss_s}}}};
    }
    const auto gap = op_gap(row, device, stats, result.units);
    auto causes = nlohmann::ordered_json::object();
    for (const auto& cause : gap.causes) causes[cause.name] = cause.seconds;
    extra["gap"] = {{"ceiling_time_s", gap.ceiling_time_s},
                    {"sim_time_s", gap.sim_time_s},
                    {"gap_s", gap.gap_s},
                    {"ceiling_taken_from", gap.absorbed_by},
                    {"causes_s", causes}};
    report.ops.push_back(std::move(row));
  }
  report.total_sim_time_s = result.sim_time_s;
  add_power_fields(report, result);
  return report;
}

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
