#pragma once
// The dispatcher module: owns the DispatchPolicy and its one event (in a device, the device's scheduler calls it
// instead). It wakes when an op's launch latency ends and, one delta cycle after a tile finishes, to refill the freed
// slot; it starts tiles by calling the units.
//
// Connects to: the compute units. Statistics: activations.
#include <systemc>

#include <functional>
#include <vector>

#include "models/compute/compute_unit.h"
#include "models/compute/dispatch_policy.h"
#include "models/compute/op_replay_hook.h"
#include "models/compute/tile_spans.h"
#include "models/kernel/device_scheduler.h"

namespace roofsim {

class Dispatcher : public sc_core::sc_module, public TileListener, private Wakeable {
 public:
  Dispatcher(const sc_core::sc_module_name& name, DispatchPolicy& policy);
  void attach(std::vector<ComputeUnit*> units) {
    units_ = std::move(units);
    spans_ = TileSpanRecorder(units_.size());
  }

  void tile_finished(std::size_t op, std::uint64_t unit) override;
  void write_posted(std::size_t op) override { policy_.write_posted(op); }
  void write_acknowledged(std::size_t op) override;
  void step_boundary(std::size_t op) override;
  // External ops (DispatchOp::external): `listener` hears of each when its inputs are ready; complete() ends it now.
  void on_reached(std::function<void(std::size_t op)> listener) { on_reached_ = std::move(listener); }
  void complete(std::size_t op);
  // The device's scheduler calls the dispatcher's wake-ups after its first run, which its own process makes at the
  // start of the simulation (device_scheduler.h).
  void attach_scheduler(DeviceScheduler& scheduler) { wake_.attach(scheduler, *this); }
  [[nodiscard]] std::uint64_t activations() const { return activations_; }
  [[nodiscard]] const TileSpanRecorder& tile_spans() const { return spans_; }
  [[nodiscard]] TileSpanRecorder& tile_spans() { return spans_; }
  // Memoized execution: asked before each op's first tile (null: every op is simulated).
  void set_replay_hook(OpReplayHook* hook) { replay_ = hook; }
  // A replay not yet ended now ends at `end_fs` and hands out its last tile at `tiles_out_fs`
  // (DispatchPolicy::retime_replay); wakes at the policy's next time.
  void retime_replay(std::size_t op, TimeFs end_fs, TimeFs tiles_out_fs);

 private:
  void run();
  void wake_now() override { run(); }

  DispatchPolicy& policy_;
  std::vector<ComputeUnit*> units_;
  sc_core::sc_event wake_event_;
  WakeHandle wake_{wake_event_};
  std::uint64_t activations_ = 0;
  TileSpanRecorder spans_;
  std::function<void(std::size_t)> on_reached_;
  OpReplayHook* replay_ = nullptr;
};

}  // namespace roofsim
