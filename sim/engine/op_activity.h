#pragma once
// The device's activity as the power domain reads it (models/power/governor_module.h): each op's executed FLOPs on
// its engine and data type and the bytes it moved at each memory level, straight from the counters the compute units
// and the memory system keep (OpExecution), and with the detailed DRAM model the DRAM commands the controller
// charged to it (EngineDramAdapter::op_counters), read only when the governor wakes.
#include <array>
#include <vector>

#include "models/compute/compute_unit.h"
#include "models/compute/dispatch_policy.h"
#include "models/compute/op_execution.h"
#include "models/compute/paced_work.h"
#include "models/dram/engine_dram_adapter.h"
#include "models/dram/simple_dram.h"
#include "models/kernel/compute_clock.h"
#include "models/kernel/paced_transfers.h"
#include "models/power/energy_model.h"
#include "models/power/governor_module.h"
#include "sim/graph/workload.h"

namespace roofsim {

class OpActivity final : public DeviceActivity {
 public:
  // `level_names` are the memory system's (its per-op byte counters' order); they must be the energy model's.
  // `dram`: the detailed DRAM model, whose command counts fill Activity::dram_commands (null: none, the simple model).
  OpActivity(const std::vector<OpExecution>& executions, const DispatchPolicy& policy, const Workload& workload,
             const EnergyModel& model, const std::vector<std::string>& level_names,
             const EngineDramAdapter* dram = nullptr);

  // FLOPs are counted when their step is issued, lane operations when their phase is; with the units given here, the
  // work still on an engine at the time of a reading is left out until it is done, at an even pace over each phase's
  // busy interval, so that a governor window sees the power a sensor would read rather than lumps at step starts.
  void count_steps_over_their_interval(std::vector<const ComputeUnit*> units);
  // Counts the clock cycles of units holding tiles of each op (Activity::active_unit_cycles) at `clock`, which
  // changes only when the power domain has read the activity.
  void count_active_units(const ComputeClock& clock) { clock_ = &clock; }
  // With the channel model, an op's DRAM bytes are spent over their burst intervals on the channels (the memory
  // system counts them when it issues the request).
  void count_dram_bytes_over_their_bursts(SimpleDram& dram);
  // `wire_bytes` of `op` leave the device on one of its links over [begin_fs, end_fs) (a cluster run's network
  // reservation): their link energy is spent over that interval (Activity::network_bytes).
  void add_link_transfer(std::size_t op, TimeFs begin_fs, TimeFs end_fs, double wire_bytes) {
    links_.add(op, begin_fs, end_fs, wire_bytes);
  }

  [[nodiscard]] std::size_t op_count() const override { return executions_.size(); }
  void add_op_activity(std::size_t op, Activity& into) const override;
  [[nodiscard]] bool finished(TimeFs& end_fs) const override;
  [[nodiscard]] bool launched(std::size_t op) const override { return policy_.times(op).launch_fs != kNever; }
  [[nodiscard]] std::size_t launched_end() const override { return policy_.launched_end(); }
  [[nodiscard]] bool settled(std::size_t op) const override;
  // A memoized replay, or a transfer on the device's links, still spending its activity after `now_fs`.
  [[nodiscard]] bool replaying(TimeFs now_fs) const override;

 private:
  const std::vector<OpExecution>& executions_;
  const DispatchPolicy& policy_;
  std::vector<std::size_t> slots_;    // per op: its (engine, data type) slot in Activity::flops
  std::vector<bool> flops_on_lanes_;  // per op: its FLOPs are its lane operations (no matrix work)
  // per op: the (engine, operation class) slot in Activity::ops of each kind of lane operation (PhaseWork order)
  std::vector<std::array<std::size_t, kWorkKinds - 1>> op_slots_;
  const EngineDramAdapter* dram_;
  std::uint64_t banks_ = 1;  // per channel: a per-bank refresh refreshes 1/banks of what an all-bank one does
  std::vector<const ComputeUnit*> units_;
  // Per op, at the time of the last reading: the work on the engines not yet done, and the done work reported
  // (never less than before: the even-pace shares are doubles, the counts integers).
  mutable TimeFs read_at_fs_ = kNever;
  mutable std::vector<UnfinishedWork> unfinished_;
  mutable std::vector<Flops> reported_flops_;
  mutable std::vector<std::array<std::uint64_t, kWorkKinds - 1>> reported_ops_;
  // Per op: the units' time holding its tiles (summed over units) and the cycles it made at the clock of the time,
  // at the last reading.
  const ComputeClock* clock_ = nullptr;
  InFlightBytes* in_flight_ = nullptr;
  std::size_t dram_level_ = 0;                   // the DRAM's index in the per-op byte counters
  mutable std::vector<double> dram_unfinished_;  // per op, at the last reading: DRAM bytes still to move
  mutable std::vector<Bytes> reported_dram_;
  mutable std::vector<double> active_unit_fs_;
  mutable std::vector<double> active_unit_cycles_;
  mutable std::vector<bool> finished_active_;  // per op: its unit time is all counted
  mutable PacedTransfers links_;               // the device's link transfers, per op
  mutable std::vector<Bytes> reported_link_;
  [[nodiscard]] double active_unit_fs(std::size_t op, TimeFs now) const;
  // `op`'s work not yet spent at `now`, the last reading's time: its steps' on the units, a replay's and a skip's.
  [[nodiscard]] UnfinishedWork unfinished_of(std::size_t op, TimeFs now) const;
  // The part of `amount`, of the waves a fast-forward skipped in `op`, still to come at `now` (SkippedWaves).
  [[nodiscard]] double skipped_left(std::size_t op, double amount, TimeFs now) const;
};

}  // namespace roofsim
