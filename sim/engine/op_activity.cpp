#include "sim/engine/op_activity.h"

#include <algorithm>
#include <stdexcept>

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

void OpActivity::add_op_activity(std::size_t op, Activity& into) const {
  const auto& execution = executions_[op];
  into.flops[slots_[op]] += execution.executed_flops;
  for (std::size_t level = 0; level < execution.bytes.size() && level < into.level_bytes.size(); ++level) {
    into.level_bytes[level] += execution.bytes[level];
  }
  if (dram_ != nullptr && op < dram_->op_counters().size()) {
    const auto& c = dram_->op_counters()[op];
    auto& commands = into.dram_commands;
    commands.act += c.acts;
    commands.pre += c.pres;
    commands.rd += c.read_bursts;
    commands.wr += c.write_bursts;
    // Activity counts all-bank refreshes; per-bank ones count as whole all-bank equivalents of the op's running total
    // (the counts are cumulative, so a later snapshot minus an earlier one stays exact to within one per op).
    commands.ref += c.refs_all_bank + c.refs_per_bank / banks_;
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

}  // namespace roofsim
