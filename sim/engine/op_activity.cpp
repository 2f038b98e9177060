#include "sim/engine/op_activity.h"

#include <algorithm>
#include <cmath>

#include <stdexcept>

#include <systemc>
#include "sim/graph/counting.h"
#include "sim/graph/hardware_check.h"

namespace roofsim {

OpActivity::OpActivity(const std::vector<OpExecution>& executions, const DispatchPolicy& policy,
                       const Workload& workload, const EnergyModel& model, const std::vector<std::string>& level_names,
                       const EngineDramAdapter* dram)
    : executions_(executions), policy_(policy), dram_(dram) {
  if (dram_ != nullptr) banks_ = std::max(1u, dram_->device().params().standard.banks());
  if (level_names != model.level_names()) {
    throw std::logic_error("OpActivity: the memory system's levels are not the energy model's");
  }
  for (std::size_t op = 0; op < executions.size(); ++op) {
    slots_.push_back(model.flop_slot(executions[op].engine, workload.ops[op].dtype));
    // An op without matrix work (element-wise, reduction, softmax, normalization) does its FLOPs as the lane
    // operations its steps count: their energy is the operations', not the FLOPs' again.
    flops_on_lanes_.push_back(engine_work(workload.ops[op]).flops == 0);
    // Each kind of lane operation on the engine that runs it, at the energy of its class there.
    const auto vector = vector_classes(vector_data_type(workload.ops[op]));
    const std::array<EngineOpClass, kWorkKinds - 1> classes = {vector[0], vector[1], EngineOpClass::exp2,
                                                               EngineOpClass::reciprocal, EngineOpClass::rsqrt};
    std::array<std::size_t, kWorkKinds - 1> op_slots{};
    for (std::size_t kind = 0; kind + 1 < kWorkKinds; ++kind) {
      const auto class_index =
          static_cast<std::size_t>(std::find(kAllEngineOpClasses.begin(), kAllEngineOpClasses.end(), classes[kind]) -
                                   kAllEngineOpClasses.begin());
      op_slots[kind] = model.op_slot(executions[op].work_engine[kind + 1], class_index);
    }
    op_slots_.push_back(op_slots);
  }
}

void OpActivity::count_steps_over_their_interval(std::vector<const ComputeUnit*> units) {
  units_ = std::move(units);
  unfinished_.assign(executions_.size(), ComputeUnit::UnfinishedWork{});
  reported_flops_.assign(executions_.size(), 0);
  reported_ops_.assign(executions_.size(), {});
}

void OpActivity::add_op_activity(std::size_t op, Activity& into) const {
  const auto& execution = executions_[op];
  Flops flops = execution.executed_flops;
  const auto& work = execution.executed_work;
  std::array<std::uint64_t, kWorkKinds - 1> ops = {work.vector_fma, work.vector_alu, work.exp2, work.reciprocal,
                                                   work.rsqrt};
  if (!units_.empty()) {
    const TimeFs now = sc_core::sc_time_stamp().value();
    if (now != read_at_fs_) {
      read_at_fs_ = now;
      std::fill(unfinished_.begin(), unfinished_.end(), ComputeUnit::UnfinishedWork{});
      for (const auto* unit : units_) unit->add_unfinished_work(now, unfinished_);
    }
    // Counts are integers and never go down between readings (the even-pace shares are doubles).
    const auto done = [](std::uint64_t issued, double unfinished_share, std::uint64_t& reported) {
      const auto unfinished = static_cast<std::uint64_t>(std::ceil(unfinished_share));
      reported = std::max(reported, unfinished < issued ? issued - unfinished : 0);
      return reported;
    };
    flops = done(flops, unfinished_[op].flops, reported_flops_[op]);
    for (std::size_t kind = 0; kind < ops.size(); ++kind) {
      ops[kind] = done(ops[kind], unfinished_[op].ops[kind], reported_ops_[op][kind]);
    }
  }
  // A memoized replay books its counters at its start; a reading inside it sees them at an even pace over its
  // interval, as it sees a simulated op's steps.
  double share = 1.0;
  if (execution.replay_end_fs != kNever) {
    const TimeFs now = sc_core::sc_time_stamp().value();
    if (now < execution.replay_end_fs) {
      share = now <= execution.replay_start_fs
                  ? 0.0
                  : static_cast<double>(now - execution.replay_start_fs) /
                        static_cast<double>(execution.replay_end_fs - execution.replay_start_fs);
    }
  }
  const auto part = [share](std::uint64_t count) {
    return share >= 1.0 ? count : static_cast<std::uint64_t>(std::floor(static_cast<double>(count) * share));
  };
  (flops_on_lanes_[op] ? into.lane_flops : into.flops[slots_[op]]) += part(flops);
  for (std::size_t kind = 0; kind < ops.size(); ++kind) into.ops[op_slots_[op][kind]] += part(ops[kind]);
  for (std::size_t level = 0; level < execution.bytes.size() && level < into.level_bytes.size(); ++level) {
    into.level_bytes[level] += part(execution.bytes[level]);
  }
  if (dram_ != nullptr && op < dram_->op_counters().size()) {
    const auto& c = dram_->op_counters()[op];
    auto& commands = into.dram_commands;
    commands.act += part(c.acts);
    commands.pre += part(c.pres);
    commands.rd += part(c.read_bursts);
    commands.wr += part(c.write_bursts);
    // Activity counts all-bank refreshes; per-bank ones count as whole all-bank equivalents of the op's running total
    // (the counts are cumulative, so a later snapshot minus an earlier one stays exact to within one per op).
    commands.ref += part(c.refs_all_bank + c.refs_per_bank / banks_);
  }
}

bool OpActivity::finished(TimeFs& end_fs) const {
  if (!policy_.all_done()) return false;
  end_fs = 0;
  for (std::size_t op = 0; op < executions_.size(); ++op) {
    const TimeFs end = policy_.times(op).end_fs;
    if (end != kNever) end_fs = std::max(end_fs, end);
  }
  return true;
}

bool OpActivity::replaying(TimeFs now_fs) const {
  return std::any_of(executions_.begin(), executions_.end(), [now_fs](const OpExecution& e) {
    return e.replay_end_fs != kNever && e.replay_start_fs <= now_fs && now_fs < e.replay_end_fs;
  });
}

}  // namespace roofsim
