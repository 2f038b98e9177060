#include "models/compute/compute_unit.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace roofsim {

namespace {

void add_busy_at_state(std::vector<TimeFs>& busy_at_state_fs, std::size_t state, TimeFs fs) {
  if (busy_at_state_fs.size() <= state) busy_at_state_fs.resize(state + 1, 0);
  busy_at_state_fs[state] += fs;
}

}  // namespace

ComputeUnit::ComputeUnit(const sc_core::sc_module_name& name, const ComputeUnitParams& params, ChunkMemory& memory,
                         std::vector<OpExecution>& ops, TileListener& listener)
    : sc_core::sc_module(name),
      slots_(params.occupancy),
      ops_(ops),
      memory_(memory),
      listener_(listener),
      params_(params),
      engines_(std::max<std::size_t>(params.engines, 1)) {
  if (params.occupancy > (kPayloadMask >> kBufferBits)) {
    throw std::invalid_argument(std::string(name) + ": occupancy above " + std::to_string(kPayloadMask >> kBufferBits) +
                                " slots");
  }
  SC_HAS_PROCESS(ComputeUnit);
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
}

void ComputeUnit::push(TimeFs at, Kind kind, std::uint32_t payload) {
  if (seq_ == kSeqLimit) renumber();
  timeline_.push(Timed{at, seq_++ << (kPayloadBits + 2) | static_cast<std::uint64_t>(kind) << kPayloadBits | payload});
}

void ComputeUnit::renumber() {
  // The sequence numbers ran out (after 2^40 events of one unit): the pending events keep their order under new
  // numbers from 0.
  std::vector<Timed> events;
  events.reserve(timeline_.size());
  for (; !timeline_.empty(); timeline_.pop()) events.push_back(timeline_.top());
  seq_ = 0;
  for (auto& event : events) {
    event.key = seq_++ << (kPayloadBits + 2) | (event.key & ((1ULL << (kPayloadBits + 2)) - 1));
    timeline_.push(event);
  }
}

void ComputeUnit::reschedule(TimeFs now) {
  if (timeline_.empty()) return;
  const TimeFs at = std::max(timeline_.top().at, now);
  if (at >= scheduled_) return;
  wake_.notify_at(at);  // an earlier wake-up replaces the pending one
  scheduled_ = at;
}

void ComputeUnit::start_tile(std::size_t op, std::uint64_t tile) {
  const TimeFs now = now_fs();
  const auto found = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; });
  if (found == slots_.end()) throw std::logic_error(std::string(name()) + ": a tile was dispatched to a full unit");
  const auto index = static_cast<std::uint32_t>(found - slots_.begin());
  Slot& slot = *found;
  auto& execution = ops_[op];
  if (op > kPayloadMask) throw std::logic_error(std::string(name()) + ": op index above the event payload's range");
  // Fields one by one: the step buffers keep their storage from tile to tile.
  slot.busy = true;
  slot.op = op;
  slot.tile = tile;
  slot.steps = execution.lowering->steps(tile);
  slot.next_load = 0;
  slot.computed = 0;
  slot.computing = false;
  slot.stages = std::max<std::uint32_t>(2, execution.stages);
  if (slot.stages > (1U << kBufferBits)) throw std::logic_error(std::string(name()) + ": more than 2048 stages");
  if (slot.buffers.size() < slot.stages) slot.buffers.resize(slot.stages);
  std::fill(std::begin(slot.pending), std::end(slot.pending), 0U);
  slot.more_pending.assign(slot.stages > kInlineStages ? slot.stages - kInlineStages : 0, 0);
  auto& residency = execution.units[params_.index];
  if (residency.resident++ == 0) residency.since_fs = now;
  residency.first_fs = std::min(residency.first_fs, now);
  load_ahead(index, now);
  maybe_finish_tile(index, now);
  drain_requests(now);
  if (!in_wake_) reschedule(now);
}

void ComputeUnit::load_ahead(std::uint32_t index, TimeFs now) {
  Slot& slot = slots_[index];
  const auto& execution = ops_[slot.op];
  // `stages` buffers: step s may load once step s - stages has computed.
  while (slot.next_load < slot.steps && slot.next_load < slot.computed + slot.stages) {
    const std::uint32_t buffer = slot.next_load % slot.stages;
    TileStep& staged = slot.buffers[buffer];
    // The buffer's lists are cold (last read when its chunks were issued): their first lines load for writing
    // while the lowering computes the step's addresses.
    __builtin_prefetch(staged.ranges.data(), 1);
    __builtin_prefetch(staged.reads.data(), 1);
    execution.lowering->step(slot.tile, slot.next_load, staged);
    const auto& reads = staged.reads;
    slot.pending_reads(buffer) = static_cast<std::uint32_t>(reads.size());
    if (!reads.empty()) {
      request_queue_.push_back(Requests{reads.data(), staged.ranges.data(), now, 0,
                                        static_cast<std::uint32_t>(reads.size()), static_cast<std::uint32_t>(slot.op),
                                        static_cast<std::uint16_t>(index), static_cast<std::uint16_t>(buffer)});
    }
    ++slot.next_load;
  }
  try_compute(index, now);
}

void ComputeUnit::try_compute(std::uint32_t index, TimeFs now) {
  Slot& slot = slots_[index];
  if (!slot.busy || slot.computing || slot.computed >= slot.next_load) return;
  const std::uint32_t buffer = slot.computed % slot.stages;
  if (slot.pending_reads(buffer) != 0) return;
  auto& execution = ops_[slot.op];
  const TileStep& step = slot.buffers[buffer];
  const double clock_scale = clock_ != nullptr ? clock_->clock_scale() : 1.0;
  const TimeFs duration = EngineShare::step_fs(step.executed_flops, execution.unit_rate * clock_scale);
  const TimeFs finish = engines_[execution.engine].run(now, duration);
  execution.units[params_.index].busy_fs += duration;
  if (clock_ != nullptr) add_busy_at_state(execution.busy_at_state_fs, clock_->state(), duration);
  execution.executed_flops += step.executed_flops;
  execution.useful_flops += step.useful_flops;
  slot.step_flops = static_cast<double>(step.executed_flops);
  slot.step_begin_fs = finish - duration;
  slot.step_end_fs = finish;
  slot.computing = true;
  push(finish, Kind::compute_done, index);
}

void ComputeUnit::finish_step(std::uint32_t index, TimeFs now) {
  Slot& slot = slots_[index];
  auto& execution = ops_[slot.op];
  slot.computing = false;
  const TileStep& step = slot.buffers[slot.computed % slot.stages];
  const std::uint64_t tag = static_cast<std::uint64_t>(slot.op) << 1 | 1U;
  for (const Chunk& chunk : step.writes) {
    listener_.write_posted(slot.op);
    memory_.write(params_.index, step.view(chunk), now, execution.bytes.data(), *this, tag,
                  static_cast<std::uint32_t>(slot.op));
  }
  ++slot.computed;
  load_ahead(index, now);
  maybe_finish_tile(index, now);
}

void ComputeUnit::maybe_finish_tile(std::uint32_t index, TimeFs now) {
  Slot& slot = slots_[index];
  if (!slot.busy || slot.computed < slot.steps || slot.computing) return;
  slot.busy = false;
  auto& execution = ops_[slot.op];
  auto& residency = execution.units[params_.index];
  if (--residency.resident == 0) residency.resident_fs += now - residency.since_fs;
  residency.last_fs = std::max(residency.last_fs, now);
  ++execution.tiles_done;
  listener_.tile_finished(slot.op, params_.index);
}

void ComputeUnit::drain_requests(TimeFs now) {
  while (!request_queue_.empty() && outstanding_ < params_.outstanding_requests) {
    Requests& step = request_queue_.front();
    const Chunk& chunk = step.chunks[step.next];
    const ChunkView view{step.ranges + chunk.first, chunk.count, chunk.bytes, chunk.resident};
    const std::uint32_t op = step.op;
    const TimeFs queued_fs = step.queued_fs;
    const std::uint16_t slot = step.slot, buffer = step.buffer;
    if (++step.next == step.end) request_queue_.pop_front();
    std::uint32_t record;
    if (!free_issued_.empty()) {
      record = free_issued_.back();
      free_issued_.pop_back();
    } else {
      record = static_cast<std::uint32_t>(issued_.size());
      issued_.emplace_back();
    }
    issued_[record] = Issued{now, op, slot, buffer};
    ++outstanding_;
    auto& execution = ops_[op];
    // The wait for a request slot is latency (the rest of a read's latency is added when it completes).
    execution.latency_fs += now - queued_fs;
    memory_.read(params_.index, view, now, execution.bytes.data(), *this, std::uint64_t{record} << 1, op);
  }
}

void ComputeUnit::chunk_done(std::uint64_t tag, TimeFs done_fs, TimeFs unloaded_fs) {
  if ((tag & 1U) != 0) {
    push(done_fs, Kind::write_done, static_cast<std::uint32_t>(tag >> 1));
  } else {
    const auto record = static_cast<std::uint32_t>(tag >> 1);
    const Issued issued = issued_[record];
    free_issued_.push_back(record);
    // The unloaded time is latency; anything beyond is queueing at ports. Sums over chunks, read at the end of the
    // run, so adding them here rather than when the unit handles the arrival gives the same totals.
    auto& execution = ops_[issued.op];
    const TimeFs took = done_fs - issued.issued_fs;
    const TimeFs unloaded = std::min(took, unloaded_fs);
    execution.latency_fs += unloaded;
    execution.queueing_fs += took - unloaded;
    push(done_fs, Kind::read_done, std::uint32_t{issued.slot} << kBufferBits | issued.buffer);
  }
  if (!in_wake_) reschedule(now_fs());
}

void ComputeUnit::wake() {
  // The unit's state is cold (the other units and the DRAM ran since it last woke): its timeline and slots load
  // side by side rather than one miss after another.
  timeline_.prefetch();
  for (const Slot& slot : slots_) __builtin_prefetch(&slot);
  request_queue_.prefetch_front();
  in_wake_ = true;
  scheduled_ = kNever;
  const TimeFs now = now_fs();
  drain_requests(now);
  while (!timeline_.empty() && timeline_.top().at <= now) {
    const Timed event = timeline_.top();
    timeline_.pop();
    ++events_;
    const std::uint32_t payload = event.payload();
    switch (event.kind()) {
      case Kind::compute_done:
        finish_step(payload, now);
        drain_requests(now);
        break;
      case Kind::write_done: listener_.write_acknowledged(payload); break;
      case Kind::read_done: {
        const std::uint32_t slot = payload >> kBufferBits;
        --outstanding_;
        --slots_[slot].pending_reads(payload & ((1U << kBufferBits) - 1));
        try_compute(slot, now);
        drain_requests(now);
        break;
      }
    }
  }
  in_wake_ = false;
  reschedule(now);
}

void ComputeUnit::attach_clock(ComputeClock& clock) {
  clock_ = &clock;
  clock_state_ = clock.state();
  clock.add_listener(*this);
}

void ComputeUnit::clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) {
  // Steps that end after `now` keep their remaining cycles (retime_fs). On each engine they form one chain: the first
  // began at or before now and every later one was reserved while the engine was busy, so it starts where the one
  // before it ends. Warping the ends therefore re-times the whole chain, and each step's busy time changes by its new
  // length after now minus its old one.
  std::vector<Timed> events;
  events.reserve(timeline_.size());
  while (!timeline_.empty()) {
    events.push_back(timeline_.top());
    timeline_.pop();
  }
  std::sort(events.begin(), events.end(), [](const Timed& a, const Timed& b) { return b > a; });
  for (std::size_t engine = 0; engine < engines_.size(); ++engine) {
    TimeFs old_before = now_fs, new_before = now_fs;
    for (auto& event : events) {
      if (event.kind() != Kind::compute_done || event.at <= now_fs) continue;
      auto& execution = ops_[slots_[event.payload()].op];
      if (execution.engine != engine) continue;
      const TimeFs retimed = retime_fs(event.at, now_fs, old_clock_hz, new_clock_hz);
      // The step's FLOPs left at `now` are done over its re-timed rest (those of a step not yet begun, over its whole
      // re-timed interval, which starts where the one before it now ends).
      Slot& slot = slots_[event.payload()];
      if (slot.step_begin_fs < now_fs) {
        slot.step_flops *=
            static_cast<double>(slot.step_end_fs - now_fs) / static_cast<double>(slot.step_end_fs - slot.step_begin_fs);
        slot.step_begin_fs = now_fs;
      } else {
        slot.step_begin_fs = new_before;
      }
      slot.step_end_fs = retimed;
      auto& busy = execution.units[params_.index].busy_fs;
      busy = busy - (event.at - old_before) + (retimed - new_before);
      execution.busy_at_state_fs[clock_state_] -= event.at - old_before;
      add_busy_at_state(execution.busy_at_state_fs, clock_->state(), retimed - new_before);
      old_before = event.at;
      new_before = retimed;
      event.at = retimed;
    }
    engines_[engine].retime(now_fs, retime_fs(engines_[engine].free_at(), now_fs, old_clock_hz, new_clock_hz));
  }
  for (const auto& event : events) timeline_.push(event);
  clock_state_ = clock_->state();
  if (!in_wake_) {
    wake_.cancel();
    scheduled_ = kNever;
    reschedule(now_fs);
  }
}

void ComputeUnit::add_unfinished_flops(TimeFs at_fs, std::vector<double>& per_op) const {
  for (const Slot& slot : slots_) {
    if (!slot.computing || slot.step_end_fs <= at_fs) continue;
    if (at_fs <= slot.step_begin_fs) {
      per_op[slot.op] += slot.step_flops;
    } else {
      per_op[slot.op] += slot.step_flops * static_cast<double>(slot.step_end_fs - at_fs) /
                         static_cast<double>(slot.step_end_fs - slot.step_begin_fs);
    }
  }
}

}  // namespace roofsim
