#include "sim/engine/device.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/model_params.h"
#include "sim/graph/counting.h"
#include "sim/graph/hardware_check.h"

namespace roofsim {

// The stages of an op's tiles (pipeline_stages in sim/graph/lowering.h), from the reads of its first step.
std::uint32_t pipeline_stages(const TileSource& lowering, const HardwareParams& hw) {
  if (lowering.tiles() == 0 || lowering.steps(0) == 0) return kMinPipelineStages;
  TileStep step;
  lowering.step(0, 0, step);
  Bytes step_bytes = 0;
  for (const auto& chunk : step.reads) step_bytes += chunk.bytes;
  return pipeline_stages(step.reads.size(), step_bytes, hw);
}

Device::Device(const sc_core::sc_module_name& name, const HardwareParams& hw, const Workload& workload,
               bool external_collectives, OpMemoStore* memo)
    : sc_core::sc_module(name) {
  const std::uint64_t units = hw.compute.units;

  if (hw.dram && hw.dram->model == DramModel::detailed) {
    auto detailed = std::make_unique<EngineDramAdapter>("dram", *hw.dram);
    detailed_ = detailed.get();
    dram_ = std::move(detailed);
  } else if (hw.dram) {
    dram_ = std::make_unique<SimpleDram>(SimpleDramParams::from(*hw.dram));
  }
  memory_ = std::make_unique<MemorySystem>(memory_system_params(hw), dram_.get());

  std::vector<DispatchOp> dispatch;
  executions_.resize(workload.ops.size());
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    lowerings_.push_back(lower_op(op, workload.tensors, hw));
    auto& execution = executions_[i];
    execution.lowering = lowerings_.back().get();
    execution.bytes.assign(memory_->level_names().size(), 0);
    execution.units.assign(units, UnitResidency{});
    if (execution.lowering != nullptr) {
      const EngineParams* engine = op_engine(op, hw.compute);
      if (engine == nullptr) {
        throw InputError(op.pos,
                         fmt::format("op '{}': no engine{} of {} runs {}", op.name,
                                     op.engine.empty() ? "" : " '" + op.engine + "'", hw.name, to_string(op.dtype)));
      }
      const auto routes = op_routes(op, hw.compute, *engine);
      for (std::size_t kind = 0; kind < kWorkKinds; ++kind) {
        execution.work_engine[kind] = static_cast<std::uint8_t>(routes[kind].index);
        execution.work_rate[kind] = routes[kind].per_unit_per_s;
      }
      execution.engine = binding_engine(engine_seconds(engine_work(op), routes, hw.compute.engines.size()),
                                        static_cast<std::size_t>(engine - hw.compute.engines.data()));
      execution.schedule = op.schedule.value_or(hw.compute.kernel_schedule);
      execution.stages = pipeline_stages(*execution.lowering, hw);
    }
    dispatch.push_back(DispatchOp{op.after, execution.lowering ? execution.lowering->tiles() : 0,
                                  execution.lowering != nullptr,
                                  external_collectives && execution.lowering == nullptr && is_collective(op.kind)});
  }
  policy_ = std::make_unique<DispatchPolicy>(std::move(dispatch), units, hw.compute.occupancy, hw.streams,
                                             seconds_to_fs(hw.launch_latency_s));
  dispatcher_ = std::make_unique<Dispatcher>("dispatcher", *policy_);
  std::vector<ComputeUnit*> unit_pointers;
  for (std::uint64_t u = 0; u < units; ++u) {
    const ComputeUnitParams params{u, hw.compute.occupancy, hw.compute.outstanding_requests, hw.compute.engines.size()};
    units_.push_back(
        std::make_unique<ComputeUnit>(fmt::format("unit{}", u).c_str(), params, *memory_, executions_, *dispatcher_));
    unit_pointers.push_back(units_.back().get());
  }
  dispatcher_->attach(std::move(unit_pointers));
  // One scheduler calls the units, the dispatcher and the DRAM, same-instant wake-ups in this fixed order, so that a
  // device's times do not depend on the other devices in the kernel (models/kernel/device_scheduler.h).
  scheduler_ = std::make_unique<DeviceScheduler>("scheduler");
  for (auto& unit : units_) unit->attach_scheduler(*scheduler_);
  dispatcher_->attach_scheduler(*scheduler_);
  if (detailed_ != nullptr) detailed_->attach_scheduler(*scheduler_);

  // The power domain: energy counted from the ops' counters, the compute clock the units follow, and the governor.
  // The channel model counts bytes, not DRAM commands, so DRAM energy is per byte; the detailed model counts commands.
  power_ = std::make_unique<PowerDomain>(
      power_domain_params(hw), detailed_ != nullptr ? DramEnergyBasis::per_command : DramEnergyBasis::per_byte);
  for (auto& unit : units_) unit->attach_clock(power_->clock());
  activity_ =
      std::make_unique<OpActivity>(executions_, *policy_, workload, power_->model(), memory_->level_names(), detailed_);
  std::vector<const ComputeUnit*> counted_units;
  for (const auto& unit : units_) counted_units.push_back(unit.get());
  activity_->count_steps_over_their_interval(counted_units);
  activity_->count_active_units(power_->clock());
  if (auto* simple = dynamic_cast<SimpleDram*>(dram_.get())) activity_->count_dram_bytes_over_their_bursts(*simple);
  power_->elaborate(*activity_, scheduler_.get());
  if (memo != nullptr) {
    const TimeFs shortest_record_fs = detailed_ != nullptr ? shortest_record_fs_of(*hw.dram) : 0;
    replay_ = std::make_unique<DeviceOpReplay>(workload, executions_, *policy_, *memory_, detailed_, *dispatcher_,
                                               power_->clock(), *memo, shortest_record_fs);
    std::vector<ComputeUnit*> replay_units;
    for (const auto& unit : units_) replay_units.push_back(unit.get());
    replay_->set_units(std::move(replay_units));
    replay_->set_governor(power_->governor());
    power_->clock().add_listener(*replay_);
    dispatcher_->set_replay_hook(replay_.get());
  }
}

std::uint64_t Device::events() const {
  std::uint64_t total = dispatcher_->activations();
  for (const auto& unit : units_) total += unit->events();
  if (detailed_ != nullptr) total += detailed_->device().activations();
  return total;
}

std::uint64_t Device::kernel_activations() const {
  return scheduler_->activations();
}

}  // namespace roofsim
