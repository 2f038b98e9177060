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
  timeline_.push(
      Timed{{at, seq_++ << (kPayloadBits + 2) | static_cast<std::uint64_t>(kind) << kPayloadBits | payload}});
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
  slot.phase = 0;
  slot.ahead = kNone;
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
  if (!slot.busy || slot.computed >= slot.next_load) return;
  if (!slot.computing) {
    const std::uint32_t buffer = slot.computed % slot.stages;
    // Phase 0 waits for the step's reads; a later phase (after phase 0 ran ahead) only for the step before.
    if (slot.phase > 0 || slot.pending_reads(buffer) == 0) start_phase(index, buffer, slot.phase, false, now);
  }
  // Pingpong: phase 0 of the next step as soon as this step's phase 0 is done and the next step's reads arrived.
  if (slot.ahead == kNone && slot.phase > 0 && slot.computed + 1 < slot.next_load &&
      ops_[slot.op].schedule == KernelSchedule::pingpong) {
    const std::uint32_t next = (slot.computed + 1) % slot.stages;
    if (slot.pending_reads(next) == 0) start_phase(index, next, 0, true, now);
  }
}

void ComputeUnit::start_phase(std::uint32_t index, std::uint32_t buffer, std::uint32_t phase, bool ahead, TimeFs now) {
  Slot& slot = slots_[index];
  auto& execution = ops_[slot.op];
  const TileStep& step = slot.buffers[buffer];
  const PhaseWork& work = step.phases[phase];
  if (phase == 0) {
    execution.executed_flops += step.executed_flops;
    execution.useful_flops += step.useful_flops;
  }
  execution.executed_work += work;
  const double clock_scale = clock_ != nullptr ? clock_->clock_scale() : 1.0;
  // Each engine's share of the phase, in femtoseconds before rounding (the kinds one engine runs add up); `used`
  // marks the engines the phase uses, so that a GEMM step touches one.
  std::array<double, kMaxUnitEngines> engine_fs;
  unsigned used = 0;
  const std::array<std::uint64_t, kWorkKinds> counts = {work.flops, work.vector_fma, work.vector_alu,
                                                        work.exp2,  work.reciprocal, work.rsqrt};
  for (std::size_t kind = 0; kind < kWorkKinds; ++kind) {
    const double rate = execution.work_rate[kind] * clock_scale;
    if (counts[kind] == 0 || rate <= 0) continue;
    const unsigned e = execution.work_engine[kind];
    const double fs = static_cast<double>(counts[kind]) * 1e15 / rate;
    engine_fs[e] = (used & (1U << e)) != 0 ? engine_fs[e] + fs : fs;
    used |= 1U << e;
  }
  const std::size_t primary = execution.engine;
  const TimeFs primary_free_fs = engines_[primary].free_at();
  const std::size_t matrix = execution.work_engine[0];
  TimeFs end = now;
  std::uint8_t binding = static_cast<std::uint8_t>(primary);
  TimeFs primary_start = now, primary_end = now;
  TimeFs first_start = kNever, matrix_start = now, matrix_end = now;
  std::array<TimeFs, kMaxUnitEngines> engine_start, engine_end;
  const unsigned engines_used = used;
  for (; used != 0; used &= used - 1) {
    const auto e = static_cast<std::size_t>(__builtin_ctz(used));
    const TimeFs duration = round_fs(engine_fs[e]);
    const TimeFs finish = engines_[e].run(now, duration);
    engine_start[e] = finish - duration;
    engine_end[e] = finish;
    if (finish > end) {
      end = finish;
      binding = static_cast<std::uint8_t>(e);
    }
    first_start = std::min(first_start, finish - duration);
    if (e == matrix && work.flops != 0) {
      matrix_start = finish - duration;
      matrix_end = finish;
    }
    if (e != primary) continue;
    primary_start = finish - duration;
    primary_end = finish;
    execution.units[params_.index].busy_fs += duration;
    if (clock_ != nullptr) add_busy_at_state(execution.busy_at_state_fs, clock_->state(), duration);
    // A phase that follows one on other engines: the primary engine's idle time since that phase started was
    // spent waiting on the engine that ended it.
    if (!ahead && phase > 0 && slot.binding != primary) {
      const TimeFs idle_from = std::max(primary_free_fs, slot.phase_start_fs);
      if (now > idle_from) execution.units[params_.index].waited_fs[slot.binding] += now - idle_from;
    }
  }
  const std::size_t which = ahead ? 1 : 0;
  slot.primary_start_fs[which] = primary_start;
  slot.primary_end_fs[which] = primary_end;
  // The step's FLOPs (counted whole at phase 0, as the energy model books them on the op's engine) are spent phase by
  // phase in proportion to the matrix FLOPs each phase runs, over the matrix engine's busy interval in that phase; a
  // step without matrix work spreads them by operation count over each phase's span on its engines.
  StepWorkPacing& pacing = slot.pacing[which];
  if (phase == 0) pacing.step_issued(static_cast<double>(step.executed_flops));
  const bool matrix_step = step.executed_flops != 0 && (work.flops != 0 || step.work().flops != 0);
  std::uint64_t weight = 0, weight_left = 0;
  for (std::uint32_t p = phase; p < step.phase_count; ++p) {
    const PhaseWork& w = step.phases[p];
    const std::uint64_t of_p =
        matrix_step ? w.flops : w.flops + w.vector_fma + w.vector_alu + w.exp2 + w.reciprocal + w.rsqrt;
    if (p == phase) weight = of_p;
    weight_left += of_p;
  }
  const bool last = phase + 1 >= step.phase_count || weight == weight_left;
  std::array<PacedAmount, kWorkKinds - 1> ops;
  for (std::size_t kind = 1; kind < kWorkKinds; ++kind) {
    const unsigned e = execution.work_engine[kind];
    const bool ran = counts[kind] != 0 && (engines_used & (1U << e)) != 0;
    ops[kind - 1] = ran ? PacedAmount{static_cast<double>(counts[kind]), engine_start[e], engine_end[e]}
                        : PacedAmount{0.0, now, now};
  }
  pacing.phase_started(weight, weight_left, last,
                       matrix_step ? matrix_start : (first_start == kNever ? now : first_start),
                       matrix_step ? matrix_end : end, ops);
  if (ahead) {
    slot.ahead = kRunning;
    slot.ahead_phase_count = static_cast<std::uint8_t>(step.phase_count);
  } else {
    slot.computing = true;
    slot.phase_count = static_cast<std::uint8_t>(step.phase_count);
    slot.phase = static_cast<std::uint8_t>(phase);
    slot.binding = binding;
    slot.phase_start_fs = now;
  }
  push(end, Kind::compute_done, index | (ahead ? kAheadBit : 0U));
}

void ComputeUnit::phase_done(std::uint32_t index, TimeFs now) {
  Slot& slot = slots_[index];
  slot.computing = false;
  if (slot.phase + 1 < slot.phase_count) {
    ++slot.phase;
    try_compute(index, now);
  } else {
    finish_step(index, now);
  }
}

void ComputeUnit::finish_step(std::uint32_t index, TimeFs now) {
  Slot& slot = slots_[index];
  auto& execution = ops_[slot.op];
  const TileStep& step = slot.buffers[slot.computed % slot.stages];
  const std::uint64_t tag = static_cast<std::uint64_t>(slot.op) << 1 | 1U;
  for (const Chunk& chunk : step.writes) {
    listener_.write_posted(slot.op);
    memory_.write(params_.index, step.view(chunk), now, execution.bytes.data(), *this, tag,
                  static_cast<std::uint32_t>(slot.op));
  }
  ++slot.computed;
  // The next step's phase 0 may have run ahead (pingpong): it is done, or still running as this step's phase 0.
  slot.phase = 0;
  if (slot.ahead == kDone) {
    slot.phase = 1;
  } else if (slot.ahead == kRunning) {
    slot.computing = true;
    slot.phase_count = slot.ahead_phase_count;
    slot.binding = static_cast<std::uint8_t>(execution.engine);
    slot.primary_start_fs[0] = slot.primary_start_fs[1];
    slot.primary_end_fs[0] = slot.primary_end_fs[1];
  }
  if (slot.ahead != kNone) {
    slot.pacing[0] = slot.pacing[1];
  } else {
    slot.pacing[0].clear();
  }
  slot.pacing[1].clear();
  slot.ahead = kNone;
  if (watch_steps_ && slot.computed < slot.steps && slot.computed % step_quantum(slot.stages) == 0) {
    const auto first =
        std::find_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.busy && s.op == slot.op; });
    if (first - slots_.begin() == static_cast<std::ptrdiff_t>(index)) listener_.step_boundary(slot.op);
  }
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
      case Kind::compute_done: {
        const std::uint32_t slot = payload & ~kAheadBit;
        if ((payload & kAheadBit) != 0 && slots_[slot].ahead == kRunning) {
          slots_[slot].ahead = kDone;
          try_compute(slot, now);
        } else {
          phase_done(slot, now);
        }
        drain_requests(now);
        break;
      }
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
  // Work that ends after `now` keeps its remaining cycles (retime_fs). On each engine the reservations beyond now
  // form one chain: the first began at or before now and every later one was reserved while the engine was busy, so
  // it starts where the one before it ends. Warping every time after now by the same map therefore re-times each
  // chain, each phase's end (the latest of its engines' ends) and each engine's free time consistently; an op's busy
  // time changes by its primary reservation's new length after now minus its old one.
  const auto warp = [&](TimeFs at) { return at <= now_fs ? at : retime_fs(at, now_fs, old_clock_hz, new_clock_hz); };
  for (auto& slot : slots_) {
    if (!slot.busy) continue;
    auto& execution = ops_[slot.op];
    // The running phases' work left at `now` is spent over their re-timed rest.
    for (auto& pacing : slot.pacing) pacing.retime(now_fs, warp);
    const bool running[2] = {slot.computing, slot.ahead == kRunning};
    for (std::size_t which = 0; which < 2; ++which) {
      const TimeFs start = slot.primary_start_fs[which], end = slot.primary_end_fs[which];
      if (!running[which] || end <= now_fs) continue;
      const TimeFs old_part = end - std::max(start, now_fs);
      const TimeFs new_start = warp(start), new_end = warp(end);
      const TimeFs new_part = new_end - std::max(new_start, now_fs);
      auto& busy = execution.units[params_.index].busy_fs;
      busy = busy - old_part + new_part;
      execution.busy_at_state_fs[clock_state_] -= old_part;
      add_busy_at_state(execution.busy_at_state_fs, clock_->state(), new_part);
      slot.primary_start_fs[which] = new_start;
      slot.primary_end_fs[which] = new_end;
    }
  }
  std::vector<Timed> events;
  events.reserve(timeline_.size());
  while (!timeline_.empty()) {
    Timed event = timeline_.top();
    timeline_.pop();
    if (event.kind() == Kind::compute_done) event.at = warp(event.at);
    events.push_back(event);
  }
  for (auto& engine : engines_) engine.retime(now_fs, warp(engine.free_at()));
  for (const auto& event : events) timeline_.push(event);
  clock_state_ = clock_->state();
  if (!in_wake_) {
    wake_.cancel();
    scheduled_ = kNever;
    reschedule(now_fs);
  }
}

void ComputeUnit::add_unfinished_work(TimeFs at_fs, std::vector<UnfinishedWork>& per_op) const {
  for (const Slot& slot : slots_) {
    if (slot.busy) StepWorkPacing::add_unfinished(slot.pacing, at_fs, per_op[slot.op]);
  }
}

void ComputeUnit::add_progress(std::size_t op, std::vector<std::uint64_t>& histogram, std::uint64_t& queued,
                               std::uint64_t& outstanding) const {
  for (const auto& slot : slots_) {
    if (!slot.busy || slot.op != op || slot.steps == 0) continue;
    ++histogram[histogram.size() * slot.computed / slot.steps];
  }
  queued += request_queue_.size();
  outstanding += outstanding_;
}

std::uint32_t ComputeUnit::step_quantum(std::uint32_t stages) {
  const std::uint32_t buffers = std::max<std::uint32_t>(stages, 2);
  return (kStepQuantum + buffers - 1) / buffers * buffers;
}

void ComputeUnit::add_slot_steps(std::size_t op, std::vector<SlotSteps>& out) const {
  for (const auto& slot : slots_) {
    if (slot.busy && slot.op == op)
      out.push_back(SlotSteps{params_.index, slot.tile, slot.steps, slot.next_load, slot.computed});
  }
}

void ComputeUnit::skip_steps(std::size_t op, std::uint64_t tile, std::uint32_t steps) {
  for (auto& slot : slots_) {
    if (!slot.busy || slot.op != op || slot.tile != tile) continue;
    if (steps % slot.stages != 0 || slot.next_load + steps >= slot.steps) {
      throw std::logic_error(std::string(name()) +
                             ": skip_steps() past a tile's steps or out of step with its buffers");
    }
    slot.next_load += steps;
    slot.computed += steps;
  }
}

}  // namespace roofsim
