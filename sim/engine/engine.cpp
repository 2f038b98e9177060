#include "sim/engine/engine.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/engine/device.h"
#include "sim/engine/dram_op_stats.h"
#include "sim/engine/progress.h"
#include "sim/engine/simulation_loop.h"

namespace roofsim {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

// Unit-time accounting of one op over its span: what each unit did between the op's queueing and
// its end. Built from integer femtoseconds so that the parts add up exactly; the split of memory waiting into
// latency and queueing follows the measured sums over the op's chunks.
void account_time(const Op& op, const DispatchPolicy::OpTimes& t, const OpExecution& execution, std::uint64_t units,
                  const ComputeParams& compute, OpRunStats& stats) {
  const TimeFs begin = std::min(t.queued_fs, t.launch_fs);
  const TimeFs start = std::min(t.start_fs, t.end_fs);
  const TimeFs end = t.end_fs;
  TimeFs busy = 0, memory = 0, dispatch = 0, tail = 0;
  std::array<TimeFs, kMaxUnitEngines> waited{};
  for (std::uint64_t u = 0; u < units; ++u) {
    const auto& r = execution.units[u];
    if (r.first_fs == kNever) {
      tail += end - start;
      continue;
    }
    if (r.busy_fs > r.resident_fs) {
      throw std::logic_error(fmt::format("op '{}': unit {} computed {} fs while only {} fs resident", op.name, u,
                                         r.busy_fs, r.resident_fs));
    }
    TimeFs unit_waited = 0;
    for (std::size_t e = 0; e < kMaxUnitEngines; ++e) {
      waited[e] += r.waited_fs[e];
      unit_waited += r.waited_fs[e];
    }
    if (r.busy_fs + unit_waited > r.resident_fs) {
      throw std::logic_error(
          fmt::format("op '{}': unit {} computed {} fs and waited on engines {} fs while only {} "
                      "fs resident",
                      op.name, u, r.busy_fs, unit_waited, r.resident_fs));
    }
    busy += r.busy_fs;
    memory += r.resident_fs - r.busy_fs - unit_waited;
    const TimeFs after = end - r.last_fs;
    tail += after;
    dispatch += (end - start) - r.resident_fs - after;
  }
  const double latency_share = execution.latency_fs + execution.queueing_fs == 0
                                   ? 1.0
                                   : static_cast<double>(execution.latency_fs) /
                                         static_cast<double>(execution.latency_fs + execution.queueing_fs);
  const auto n = static_cast<double>(units);
  stats.span_s = fs_to_seconds(end - begin);
  stats.busy_s = fs_to_seconds(busy);
  stats.wait_memory_latency_s = fs_to_seconds(memory) * latency_share;
  stats.wait_bandwidth_s = fs_to_seconds(memory) * (1.0 - latency_share);
  stats.wait_dependencies_s = n * fs_to_seconds(t.launch_fs - begin);
  stats.wait_launch_s = n * fs_to_seconds(start - t.launch_fs);
  stats.wait_dispatch_s = fs_to_seconds(dispatch);
  stats.tail_s = fs_to_seconds(tail);
  Seconds engines_s = 0;
  for (std::size_t e = 0; e < compute.engines.size() && e < kMaxUnitEngines; ++e) {
    if (waited[e] == 0) continue;
    stats.wait_engines_s.emplace_back(compute.engines[e].name, fs_to_seconds(waited[e]));
    engines_s += fs_to_seconds(waited[e]);
  }
  stats.primary_engine = execution.engine < compute.engines.size() ? compute.engines[execution.engine].name : "";
  const double parts = engines_s + stats.busy_s + stats.wait_memory_latency_s + stats.wait_bandwidth_s +
                       stats.wait_dependencies_s + stats.wait_launch_s + stats.wait_dispatch_s + stats.tail_s;
  const double whole = n * stats.span_s;
  if (std::abs(parts - whole) > 1e-3 * whole + 1e-15) {
    throw std::logic_error(
        fmt::format("op '{}': busy + waits + tail = {} s, units x span = {} s", op.name, parts, whole));
  }
}

// Drops the ops an interrupted run did not finish from the per-op results, noting where the rest sit in the workload.
void keep_finished_ops(const std::vector<bool>& finished, RunResult& result) {
  std::vector<OpRunStats> ops;
  std::vector<OpPowerStats> power_ops;
  for (std::size_t i = 0; i < finished.size(); ++i) {
    if (!finished[i]) continue;
    result.finished_op_indices.push_back(i);
    ops.push_back(std::move(result.ops[i]));
    if (i < result.power.ops.size()) power_ops.push_back(std::move(result.power.ops[i]));
  }
  result.ops = std::move(ops);
  result.power.ops = std::move(power_ops);
}

}  // namespace

RunResult run_workload(const HardwareParams& hw, const Workload& workload, std::vector<DramRequest>* dram_requests,
                       const EngineRunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // Live until the process exits: SystemC cannot tear an elaborated hierarchy down and elaborate another.
  auto* memo = options.memoize ? new OpMemoStore() : nullptr;
  if (memo != nullptr) memo->fast_forward = options.fast_forward;
  auto* device = new Device("device", hw, workload, false, memo);
  if (dram_requests != nullptr && device->detailed_dram() != nullptr)
    device->detailed_dram()->set_request_log(dram_requests);
  Flops total_flops = 0;
  for (const auto& op : workload.ops) total_flops += op.useful_flops;
  ProgressReport progress(workload.ops.size(), total_flops, options.progress ? &std::cerr : nullptr);
  const auto& policy = device->policy();
  const bool complete = simulate_until_idle_or_interrupted([&]() {
    if (!options.progress) return;
    Flops done_flops = 0;
    for (std::size_t i = 0; i < workload.ops.size(); ++i) {
      if (policy.times(i).end_fs != kNever) done_flops += workload.ops[i].useful_flops;
    }
    progress.report(policy.done_ops(), done_flops, fs_to_seconds(sc_core::sc_time_stamp().value()),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  });
  auto result = collect_run_result(hw, workload, *device,
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(),
                                   complete);
  if (memo != nullptr) {
    result.ops_replayed = memo->replayed;
    result.ops_recorded = memo->recorded;
    result.memo_signatures = memo->size();
    result.ops_fast_forwarded = memo->fast_forwarded;
    result.waves_skipped = memo->skipped_waves;
    result.steps_skipped = memo->skipped_steps;
    result.skips_through_changes = memo->skips_through_changes;
  }
  return result;
}

RunResult collect_run_result(const HardwareParams& hw, const Workload& workload, const Device& device_ref,
                             Seconds wall_s, bool complete) {
  const Device* device = &device_ref;
  RunResult result;
  result.device = hw.name;
  result.workload = workload.name;
  result.units = hw.compute.units;
  if (hw.dram) result.dram_model = device->detailed_dram() != nullptr ? "detailed" : "simple";
  const auto& policy = device->policy();
  const auto& memory = device->memory();
  result.complete = complete;
  if (complete) {
    if (!policy.all_done()) throw std::logic_error("the simulation ended with ops unfinished (a dependency deadlock)");
    memory.check_conservation();
  }
  // An interrupted run keeps the ops that finished; the others hold only their name until they are dropped below.
  std::vector<bool> finished(workload.ops.size(), true);

  const auto& names = memory.level_names();
  TimeFs last_end = 0;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const auto& execution = device->executions()[i];
    const auto& times = policy.times(i);
    OpRunStats stats;
    stats.name = op.name;
    stats.kind = std::string(to_string(op.kind));
    if (!complete && times.end_fs == kNever) {
      finished[i] = false;
      result.ops.push_back(std::move(stats));
      continue;
    }
    stats.launch_s = fs_to_seconds(times.launch_fs);
    stats.start_s = fs_to_seconds(times.start_fs);
    stats.end_s = fs_to_seconds(times.end_fs);
    stats.sim_time_s = fs_to_seconds(times.end_fs - times.launch_fs);
    last_end = std::max(last_end, times.end_fs);
    for (std::size_t l = 0; l < names.size(); ++l) stats.bytes.emplace_back(names[l], execution.bytes[l]);
    stats.useful_flops = op.useful_flops;
    if (execution.lowering == nullptr) {
      stats.simulated = false;
      stats.note = "not simulated: single device";
      result.ops.push_back(std::move(stats));
      continue;
    }
    const auto& lowering = *execution.lowering;
    if (execution.executed_flops != lowering.executed_flops()) {
      throw std::logic_error(fmt::format("op '{}': executed {} FLOPs, the lowering counts {}", op.name,
                                         execution.executed_flops, lowering.executed_flops()));
    }
    if (execution.tiles_done != lowering.tiles()) {
      throw std::logic_error(
          fmt::format("op '{}': {} of {} tiles ran", op.name, execution.tiles_done, lowering.tiles()));
    }
    if (stats.useful_flops == 0) stats.useful_flops = lowering.useful_flops();
    stats.executed_flops = execution.executed_flops;
    stats.tiling = lowering.description();
    stats.tiles = lowering.tiles();
    stats.waves = ceil_div(stats.tiles, hw.compute.units * hw.compute.occupancy);
    stats.achieved_flops_per_s =
        stats.sim_time_s > 0 ? static_cast<double>(stats.useful_flops) / stats.sim_time_s : 0.0;
    account_time(op, times, execution, hw.compute.units, hw.compute, stats);
    const PhaseWork& work = execution.executed_work;
    stats.engine_flops = work.flops;
    stats.vector_fma_ops = work.vector_fma;
    stats.vector_alu_ops = work.vector_alu;
    stats.exp2_ops = work.exp2;
    stats.reciprocal_ops = work.reciprocal;
    stats.rsqrt_ops = work.rsqrt;
    const auto& clock = device->power().clock();
    for (const TimeFs fs : execution.busy_at_state_fs) stats.busy_at_state_s.push_back(fs_to_seconds(fs));
    stats.throttle_s = throttling_loss_s(execution.busy_at_state_fs, clock.states(), clock.nominal_clock_hz());
    result.ops.push_back(std::move(stats));
  }
  result.sim_time_s = fs_to_seconds(last_end);
  std::vector<OpInterval> lives;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const auto& times = policy.times(i);
    const TimeFs launch = times.launch_fs == kNever ? 0 : times.launch_fs;
    lives.push_back({launch, times.end_fs == kNever ? launch : std::max(launch, times.end_fs)});
  }
  result.power = device->power().stats(lives);
  if (auto* detailed = device->detailed_dram()) fill_dram_op_stats(*detailed, *hw.dram, result);

  const auto counters = memory.counters();
  for (std::size_t l = 0; l < counters.size(); ++l) {
    const auto& c = counters[l];
    const auto& level = hw.levels[l];
    const double ports = level.scope == LevelScope::unit ? static_cast<double>(hw.compute.units)
                                                         : static_cast<double>(std::max<std::uint64_t>(level.banks, 1));
    result.levels.push_back(
        LevelRunStats{names[l], c.read_bytes, c.write_bytes, c.hit_bytes, c.miss_bytes,
                      last_end == 0 ? 0.0 : fs_to_seconds(c.port_busy_fs) / (ports * fs_to_seconds(last_end))});
  }
  if (memory.dram() != nullptr) {
    result.levels.push_back(LevelRunStats{"dram", memory.dram_bytes_read(), memory.dram_bytes_written(), 0, 0, 0});
  }
  result.events = device->events();
  result.kernel_activations = device->kernel_activations();
  result.processes = hw.compute.units + 1 + (device->detailed_dram() != nullptr ? 2 : 0);  // + the DRAM's two
  result.tile_spans = device->tile_spans();
  result.wall_s = wall_s;
  if (!complete) keep_finished_ops(finished, result);
  return result;
}

}  // namespace roofsim
