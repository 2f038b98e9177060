#include "sim/engine/op_activity.h"

#include <algorithm>
#include <cmath>

#include <stdexcept>
#include <systemc>

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
  }
}

void OpActivity::count_steps_over_their_interval(std::vector<const ComputeUnit*> units) {
  units_ = std::move(units);
  unfinished_flops_.assign(executions_.size(), 0.0);
  reported_flops_.assign(executions_.size(), 0);
}

void OpActivity::add_op_activity(std::size_t op, Activity& into) const {
  const auto& execution = executions_[op];
  Flops flops = execution.executed_flops;
  if (!units_.empty()) {
    const TimeFs now = sc_core::sc_time_stamp().value();
    if (now != read_at_fs_) {
      read_at_fs_ = now;
      std::fill(unfinished_flops_.begin(), unfinished_flops_.end(), 0.0);
      for (const auto* unit : units_) unit->add_unfinished_flops(now, unfinished_flops_);
    }
    const auto unfinished = static_cast<Flops>(std::ceil(unfinished_flops_[op]));
    flops = std::max(reported_flops_[op], unfinished < flops ? flops - unfinished : 0);
    reported_flops_[op] = flops;
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
  into.flops[slots_[op]] += part(flops);
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
