#include "models/compute/dispatcher.h"

#include <algorithm>

namespace roofsim {

Dispatcher::Dispatcher(const sc_core::sc_module_name& name, DispatchPolicy& policy)
    : sc_core::sc_module(name), policy_(policy) {
  SC_HAS_PROCESS(Dispatcher);
  SC_METHOD(run);
  sensitive << wake_event_;
}

void Dispatcher::run() {
  ++activations_;
  const TimeFs now = sc_core::sc_time_stamp().value();
  policy_.advance(now);
  for (const auto op : policy_.take_reached()) {
    if (on_reached_) on_reached_(op);
  }
  if (replay_ != nullptr) {
    for (const auto op : policy_.take_held_ended()) replay_->op_finished(op, policy_.times(op).end_fs);
    while (const auto op = policy_.next_starting(now)) {
      const TimeFs end = replay_->op_starting(*op, now);
      if (end != kNever) policy_.replay(*op, end, replay_->tiles_out_fs(*op));
    }
  }
  const std::uint64_t wave = policy_.wave_tiles();
  while (auto assignment = policy_.next_tile(now)) {
    if (replay_ != nullptr && assignment->tile != 0 && assignment->tile % wave == 0) {
      const auto skip = replay_->wave_boundary(assignment->op, assignment->tile, now);
      if (skip.tiles > 0) {
        assignment->tile = policy_.skip_tiles(assignment->op, assignment->tile, skip.tiles, skip.hold_fs);
      }
    }
    spans_.start(assignment->op, assignment->unit, now);
    units_[assignment->unit]->start_tile(assignment->op, assignment->tile);
  }
  const TimeFs next = policy_.next_wake(now);
  if (next != kNever) wake_.notify_at(next);
}

void Dispatcher::tile_finished(std::size_t op, std::uint64_t unit) {
  const TimeFs now = sc_core::sc_time_stamp().value();
  spans_.finish(op, unit, now);
  policy_.tile_done(op, unit, now);
  if (replay_ != nullptr && policy_.times(op).end_fs != kNever) replay_->op_finished(op, now);
  if (replay_ != nullptr && policy_.times(op).held && policy_.times(op).end_fs == kNever) {
    replay_->hold_started(op, now);
  }
  wake_.notify_at(now);
}

void Dispatcher::write_acknowledged(std::size_t op) {
  const TimeFs now = sc_core::sc_time_stamp().value();
  if (policy_.write_acknowledged(op, now)) {
    if (replay_ != nullptr && policy_.times(op).end_fs != kNever) replay_->op_finished(op, now);
    if (replay_ != nullptr && policy_.times(op).held && policy_.times(op).end_fs == kNever) {
      replay_->hold_started(op, now);
    }
    wake_.notify_at(now);
  }
}

void Dispatcher::step_boundary(std::size_t op) {
  if (replay_ == nullptr) return;
  const TimeFs hold_fs = replay_->step_boundary(op, sc_core::sc_time_stamp().value());
  if (hold_fs > 0) (void)policy_.skip_tiles(op, 0, 0, hold_fs);
}

void Dispatcher::retime_replay(std::size_t op, TimeFs end_fs, TimeFs tiles_out_fs) {
  policy_.retime_replay(op, end_fs, tiles_out_fs);
  const TimeFs now = sc_core::sc_time_stamp().value();
  const TimeFs next = policy_.next_wake(now);
  if (next != kNever) wake_.notify_at(next);
}

void Dispatcher::complete(std::size_t op) {
  policy_.external_done(op, sc_core::sc_time_stamp().value());
  wake_.notify_at(sc_core::sc_time_stamp().value());
}

}  // namespace roofsim
