#include "sim/engine/run_report.h"

#include <ostream>

#include <fmt/format.h>

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
      row.sim_time_s = 0.0;
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
          {"loss_s",
           {{"row_misses", d.row_miss_loss_s}, {"refresh", d.refresh_loss_s}, {"turnarounds", d.turnaround_loss_s}}}};
    }
    report.ops.push_back(std::move(row));
  }
  report.total_sim_time_s = result.sim_time_s;
  return report;
}

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
  if (above_dram_line && result.dram_model == "simple") {
    out << "note: efficiency above 100% against the DRAM-aware ceiling: the simple channel model moves data at the pin "
           "rate, above the all-row-hit line (refresh and row timing), which dram.model = \"detailed\" simulates\n";
  }
}

}  // namespace roofsim
