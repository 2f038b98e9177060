#include "sim/results/run_report.h"

#include <algorithm>
#include <cmath>

#include "sim/graph/counting.h"
#include "sim/graph/hardware_check.h"
#include "sim/graph/lowering.h"
#include "sim/results/gap_attribution.h"
#include "sim/results/power_report.h"
#include "sim/results/roofline_report.h"

namespace roofsim {

double run_efficiency(const OpReport& op, const DeviceRoof& /*device*/) {
  if (!op.sim_time_s || *op.sim_time_s <= 0) return 0.0;
  const Seconds ceiling_s = op.roofline.ceilings[op.roofline.binding].time_s;
  return std::isfinite(ceiling_s) ? ceiling_s / *op.sim_time_s : 0.0;
}

Seconds ceiling_time_s(const OpReport& op, const DeviceRoof& /*device*/) {
  const Seconds ceiling_s = op.roofline.ceilings[op.roofline.binding].time_s;
  return std::isfinite(ceiling_s) ? ceiling_s : 0.0;
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
  // The time the op's primary engine waited on its other engines (the matrix engine on the softmax's vector and
  // special-function work), measured per phase by the units.
  for (const auto& [engine, seconds] : stats.wait_engines_s) input.causes.push_back({engine, seconds / n});
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
    // Throttling: the busy time the op's steps took beyond the nominal clock's, measured per DVFS state
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
  if (!result.complete) {
    // The report of an interrupted run is that of the finished ops alone.
    Workload finished = workload;
    finished.ops.clear();
    for (const auto i : result.finished_op_indices) finished.ops.push_back(workload.ops.at(i));
    RunResult finished_result = result;
    finished_result.complete = true;
    Report report = make_run_report(finished, hardware, device, finished_result);
    report.complete = false;
    return report;
  }
  Report report = report_head("run", "simulated", workload, hardware, device);
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
    input.work = engine_work(op);
    input.vector_dtype = vector_data_type(op);
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
    for (const auto& [waited_on, seconds] : stats.wait_engines_s) extra["unit_time_s"]["wait_" + waited_on] = seconds;
    extra["primary_engine"] = stats.primary_engine;
    extra["engine_ops"] = {{"flops", stats.engine_flops},        {"vector_fma", stats.vector_fma_ops},
                           {"vector_alu", stats.vector_alu_ops}, {"exp2", stats.exp2_ops},
                           {"reciprocal", stats.reciprocal_ops}, {"rsqrt", stats.rsqrt_ops}};
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

}  // namespace roofsim
