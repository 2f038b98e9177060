#pragma once
// One device's module tree, built from its hardware parameters: N compute units and the dispatcher (modules with
// processes), the memory levels the file declares and the DRAM: `dram.model = "detailed"` (the default) is the
// controller model of every channel (models/dram/engine_dram_adapter.h, a module with its own process); "simple" is
// the channel model (busy-until resources the units' events reserve, no process of its own).
#include <systemc>

#include <memory>
#include <vector>

#include "models/compute/compute_unit.h"
#include "models/compute/dispatcher.h"
#include "models/dram/engine_dram_adapter.h"
#include "models/dram/simple_dram.h"
#include "models/kernel/device_scheduler.h"
#include "models/memory/memory_system.h"
#include "models/power/power_domain.h"
#include "sim/config/hardware_params.h"
#include "sim/engine/op_activity.h"
#include "sim/engine/op_replay.h"
#include "sim/graph/lowering.h"
#include "sim/graph/workload.h"

namespace roofsim {

class Device : public sc_core::sc_module {
 public:
  // external_collectives: collectives wait for Dispatcher::complete() (a cluster run's network) instead of taking
  // zero time. memo: the store of memoized op results (sim/engine/op_replay.h) to record into and replay from;
  // null simulates every op.
  Device(const sc_core::sc_module_name& name, const HardwareParams& hw, const Workload& workload,
         bool external_collectives = false, OpMemoStore* memo = nullptr);

  [[nodiscard]] const std::vector<std::unique_ptr<OpLowering>>& lowerings() const { return lowerings_; }
  [[nodiscard]] const std::vector<OpExecution>& executions() const { return executions_; }
  [[nodiscard]] const DispatchPolicy& policy() const { return *policy_; }
  [[nodiscard]] const MemorySystem& memory() const { return *memory_; }
  [[nodiscard]] Dispatcher& dispatcher() { return *dispatcher_; }
  // The timed events the model handled (a discrete-event simulator's event count): the units' chunk arrivals, step
  // ends and write acknowledgements, the dispatcher's wake-ups and the detailed DRAM's decision passes.
  [[nodiscard]] std::uint64_t events() const;
  // Runs of the device scheduler's process: the SystemC activations those events cost.
  [[nodiscard]] std::uint64_t kernel_activations() const;
  // The detailed DRAM, or null (simple model, or no DRAM).
  [[nodiscard]] EngineDramAdapter* detailed_dram() const { return detailed_; }
  [[nodiscard]] const std::vector<TileSpan>& tile_spans() const { return dispatcher_->tile_spans().spans(); }
  [[nodiscard]] const PowerDomain& power() const { return *power_; }
  // `wire_bytes` of op `op` leave this device on one of its links over [begin_fs, end_fs): their link energy is
  // spent over that interval, in the power the governor reads (a cluster run's network calls this).
  void add_link_transfer(std::size_t op, TimeFs begin_fs, TimeFs end_fs, double wire_bytes) {
    activity_->add_link_transfer(op, begin_fs, end_fs, wire_bytes);
    scheduler_->outside_activity(begin_fs);
  }

 private:
  std::vector<std::unique_ptr<OpLowering>> lowerings_;
  std::vector<OpExecution> executions_;
  std::unique_ptr<DramInterface> dram_;
  EngineDramAdapter* detailed_ = nullptr;  // dram_ when it is the detailed model
  std::unique_ptr<MemorySystem> memory_;
  std::unique_ptr<DispatchPolicy> policy_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<DeviceScheduler> scheduler_;
  std::vector<std::unique_ptr<ComputeUnit>> units_;
  std::unique_ptr<PowerDomain> power_;
  std::unique_ptr<OpActivity> activity_;
  std::unique_ptr<DeviceOpReplay> replay_;
};

}  // namespace roofsim
