#include "sim/engine/op_replay.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "sim/core/power_laws.h"

namespace roofsim {

namespace {

// boundary_of's state class starts with the compute clock's state: a skip through a clock change looks up the window
// seen steady in the same class at the state the clock moves to.
constexpr std::size_t kClockStateClass = 0;

const std::vector<ProgressKnot> kEvenPace;

TimeFs shifted(TimeFs t, TimeFs by, bool forward) {
  if (t == kNever) return kNever;
  return forward ? t + by : t - by;
}

// Half-octave classes of a count: 0, then two classes per power of two (the queues a wave boundary finds vary by a
// few entries from wave to wave; their order of magnitude is what sets the latency the next wave sees).
std::uint64_t half_octave_class(std::uint64_t x) {
  if (x == 0) return 0;
  const auto top = static_cast<std::uint64_t>(63 - __builtin_clzll(x));
  const std::uint64_t half = top == 0 ? 0 : (x >> (top - 1)) & 1ULL;
  return 1 + 2 * top + half;
}

// The counters of an op that a skipped wave adds to, in one order for reading (push) and booking (take).
struct CounterCursor {
  std::vector<std::uint64_t>* out = nullptr;
  const std::vector<std::uint64_t>* in = nullptr;
  std::size_t next = 0;
  void push(std::uint64_t v) const { out->push_back(v); }
  std::uint64_t take() { return (*in)[next++]; }
};

}  // namespace

TimeFs shortest_record_fs_of(const DramParams& dram) {
  const auto& timing = dram.standard.timing;
  const RefreshMode mode = dram.resolved_refresh();
  const auto interval = mode == RefreshMode::per_bank ? timing.tREFIsb : timing.tREFI;
  if (mode == RefreshMode::none || interval == 0) return 0;
  return seconds_to_fs(static_cast<double>(kRecordRefreshIntervals * static_cast<std::uint64_t>(interval)) *
                       dram.standard.tck_s);
}

DeviceOpReplay::DeviceOpReplay(const Workload& workload, std::vector<OpExecution>& executions,
                               const DispatchPolicy& policy, MemorySystem& memory, EngineDramAdapter* dram,
                               Dispatcher& dispatcher, const ClockDomain& clock, OpMemoStore& store,
                               TimeFs shortest_record_fs)
    : workload_(workload),
      executions_(executions),
      policy_(policy),
      memory_(memory),
      dram_(dram),
      dispatcher_(dispatcher),
      clock_(clock),
      store_(store),
      shortest_record_fs_(shortest_record_fs),
      sram_levels_(memory.sram_levels()) {}

std::vector<const Tensor*> DeviceOpReplay::tensors_of(std::size_t op) const {
  const Op& o = workload_.ops[op];
  std::vector<const Tensor*> tensors;
  for (const auto t : o.inputs) tensors.push_back(&workload_.tensors[t]);
  for (const auto t : o.outputs) tensors.push_back(&workload_.tensors[t]);
  for (const auto t : o.scratch) tensors.push_back(&workload_.tensors[t]);
  return tensors;
}

std::string DeviceOpReplay::signature(std::size_t op) const {
  const Op& o = workload_.ops[op];
  const OpExecution& e = executions_[op];
  const OpShape& s = o.shape;
  std::string key = fmt::format(
      "{}|{}|{}|{}|{}|{}|{}|{} {} {} {}|{} {} {} {} {} {} {} {}|{} {} {} {}|{} {} {}|{} {} {} {} {}|{} {} {}|",
      to_string(o.kind), to_string(o.dtype), e.engine, static_cast<int>(e.schedule), e.stages,
      e.lowering->description(), e.lowering->tiles(), s.batch, s.m, s.n, s.k, s.channels, s.height, s.width, s.filters,
      s.kernel_h, s.kernel_w, s.stride, s.padding, s.elements, s.flops_per_element, s.exp2_per_element,
      s.reciprocal_per_element, s.rows, s.cols, s.vocab, s.heads, s.kv_heads, s.seq_q, s.seq_kv, s.head_dim, s.causal,
      s.flash, s.ert_passes);
  for (const auto* t : tensors_of(op)) key += fmt::format("{}{} ", t->bytes, t->resident ? "r" : "");
  key += '|';
  // The residency class of each input at each cache level.
  for (std::size_t level = 0; level < sram_levels_; ++level) {
    const std::size_t arrays = memory_.tag_arrays(level);
    if (arrays == 0) continue;
    std::vector<Bytes> resident(o.inputs.size(), 0);
    Bytes held = 0, capacity = 0;
    for (std::size_t a = 0; a < arrays; ++a) {
      const CacheTags& tags = memory_.tags(level, a);
      const Bytes block_bytes = tags.tracking_bytes();
      const Bytes sector = tags.sector_bytes();
      capacity += tags.sets() * tags.ways() * block_bytes;
      tags.for_each_block([&](Bytes block, std::uint64_t valid, std::uint64_t) {
        held += static_cast<Bytes>(__builtin_popcountll(valid)) * sector;
        for (std::size_t i = 0; i < o.inputs.size(); ++i) {
          const Tensor& t = workload_.tensors[o.inputs[i]];
          if (block + block_bytes <= t.address || block >= t.address + t.bytes) continue;
          if (block >= t.address && block + block_bytes <= t.address + t.bytes) {
            resident[i] += static_cast<Bytes>(__builtin_popcountll(valid)) * sector;
          } else {
            resident[i] += valid_bytes_in(block, valid, sector, t.address, t.bytes);
          }
        }
      });
    }
    const Bytes compulsory = std::max<Bytes>(o.compulsory_bytes(), 1);
    for (std::size_t i = 0; i < o.inputs.size(); ++i)
      key += fmt::format("{} ", residency_class(resident[i], compulsory));
    // How full the level is: whether the op's fills evict what it reads, or find empty ways (a cold cache).
    key += fmt::format("held {}", residency_class(held, capacity) / (kResidencyClasses / kFillClasses));
    key += '|';
  }
  return key;
}

TimeFs DeviceOpReplay::op_starting(std::size_t op, TimeFs now) {
  // Another op starting while one is recorded makes that record an overlap, which the signature does not describe.
  for (auto& r : recordings_) r.valid = false;
  if (executions_[op].lowering != nullptr) started_.push_back(op);
  if (executions_[op].lowering == nullptr || policy_.others_in_flight(op) || group_) {
    if (executions_[op].lowering != nullptr) {
      const TimeFs end = group_starting(op, now);
      if (end != kNever) return end;
    }
    // A clock course imposed for a replay or a hold in flight does not describe the op joining it.
    if (governor_ != nullptr && executions_[op].lowering != nullptr) {
      governor_->settle(now);
      governor_->release(now);
    }
    ++store_.simulated;
    return kNever;
  }
  std::string key = signature(op);
  if (const OpRecord* record = store_.find(key)) {
    replay(op, *record, now);
    ++store_.replayed;
    return executions_[op].replay_end_fs;
  }
  // The power sampled so far closes at the op's start, so that its record's samples begin with it.
  if (throttled()) governor_->mark(now);
  recordings_.push_back(start_recording(op, std::move(key), now));
  return kNever;
}

DeviceOpReplay::Recording DeviceOpReplay::start_recording(std::size_t op, std::string signature, TimeFs now) const {
  Recording r;
  r.op = op;
  r.signature = std::move(signature);
  r.start_fs = now;
  r.levels = memory_.counters();
  r.dram_read = memory_.dram_bytes_read();
  r.dram_written = memory_.dram_bytes_written();
  r.asked = dram_ != nullptr ? dram_->asked_burst_bytes() : 0;
  r.spans = dispatcher_.tile_spans().spans().size();
  r.clock_changes = clock_.changes();
  r.clock_state = clock_.state();
  if (throttled()) r.samples = governor_->trace().size();
  return r;
}

void DeviceOpReplay::op_finished(std::size_t op, TimeFs now) {
  started_.erase(std::remove(started_.begin(), started_.end(), op), started_.end());
  // A fast-forwarded op's units and tile spans take its holds before anything records it (an overlap group's member
  // is recorded when it finishes, below).
  bool fast_forwarded = false, inside_tiles = false;
  // The skips in the run's times, and the hold's start: the op ends when the hold of all its skips does.
  std::vector<HeldSkip> held_skips;
  TimeFs hold_start_fs = now;
  for (std::size_t i = 0; i < forwards_.size(); ++i) {
    if (forwards_[i].op != op) continue;
    fast_forwarded = !forwards_[i].skips.empty();
    for (const auto& skipped : forwards_[i].skips) {
      inside_tiles = inside_tiles || skipped.inside_tiles;
      held_skips.push_back(HeldSkip{skipped.skip_fs, skipped.hold_fs});
      hold_start_fs -= skipped.hold_fs;
    }
    if (fast_forwarded) end_fast_forward(forwards_[i]);
    forwards_.erase(forwards_.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (group_) group_finished(op, now);
  for (std::size_t i = 0; i < replaying_.size(); ++i) {
    Replaying& r = replaying_[i];
    if (r.op != op) continue;
    if (r.spans_at_end) {
      const auto& knots = r.time_knots;
      const double duration = static_cast<double>(r.record->duration_fs);
      const auto at = [&](TimeFs recorded_fs) {
        if (knots.empty() || duration <= 0) return r.start_fs + recorded_fs;
        return time_at_progress(knots, static_cast<double>(recorded_fs) / duration);
      };
      auto& spans = dispatcher_.tile_spans();
      for (TileSpan span : r.record->spans) {
        span.op = static_cast<std::uint32_t>(op);
        span.start_fs = at(span.start_fs);
        span.end_fs = std::max(span.start_fs, at(span.end_fs));
        spans.add(span);
      }
    }
    // The refreshes due through the replay, but those its twin left owed at its end.
    if (dram_ != nullptr && r.record->detailed_dram) dram_->replay_ended(now, r.record->refresh_lag_fs);
    replaying_.erase(replaying_.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
  for (std::size_t i = 0; i < recordings_.size(); ++i) {
    if (recordings_[i].op != op) continue;
    const Recording r = std::move(recordings_[i]);
    recordings_.erase(recordings_.begin() + static_cast<std::ptrdiff_t>(i));
    if (r.valid && now - r.start_fs >= shortest_record_fs_) {
      std::optional<HeldTime> held;
      if (fast_forwarded) {
        for (auto& skip : held_skips) skip.skip_fs -= r.start_fs;
        held.emplace(held_skips, hold_start_fs - r.start_fs, now - r.start_fs);
      }
      auto rec = record(r, now, held);
      rec->fast_forwarded = fast_forwarded;
      rec->forwarded_inside_tiles = inside_tiles;
      store_.insert(r.signature, std::move(rec), this);
      ++store_.recorded;
    } else {
      ++store_.simulated;
    }
    return;
  }
}

std::unique_ptr<OpRecord> DeviceOpReplay::record(const Recording& r, TimeFs end_fs,
                                                 const std::optional<HeldTime>& held) {
  auto rec = std::make_unique<OpRecord>();
  const OpExecution& e = executions_[r.op];
  rec->duration_fs = end_fs - r.start_fs;
  const TimeFs tiles_out = policy_.times(r.op).tiles_out_fs;
  rec->tiles_out_fs = tiles_out != kNever && tiles_out > r.start_fs ? std::min(tiles_out, end_fs) - r.start_fs : 0;
  rec->executed_work = e.executed_work;
  rec->executed_flops = e.executed_flops;
  rec->tiles_done = e.tiles_done;
  rec->bytes = e.bytes;
  rec->latency_fs = e.latency_fs;
  rec->queueing_fs = e.queueing_fs;
  rec->busy_at_state_fs = e.busy_at_state_fs;
  rec->units = e.units;
  for (auto& u : rec->units) {
    if (u.first_fs == kNever) continue;
    u.first_fs -= r.start_fs;
    u.last_fs -= r.start_fs;
    u.since_fs = u.since_fs >= r.start_fs ? u.since_fs - r.start_fs : 0;
  }
  const auto levels = memory_.counters();
  for (std::size_t l = 0; l < levels.size(); ++l) rec->levels.push_back(levels[l] - r.levels[l]);
  rec->dram_read_bytes = memory_.dram_bytes_read() - r.dram_read;
  rec->dram_written_bytes = memory_.dram_bytes_written() - r.dram_written;
  if (dram_ != nullptr) {
    rec->detailed_dram = true;
    if (r.op < dram_->op_counters().size()) rec->dram = dram_->op_counters()[r.op];
    rec->dram_asked_burst_bytes = dram_->asked_burst_bytes() - r.asked;
    rec->refresh_lag_fs = dram_->refresh_lag_fs(end_fs);
  }
  const auto& spans = dispatcher_.tile_spans().spans();
  for (std::size_t i = r.spans; i < spans.size(); ++i) {
    if (spans[i].op != r.op) continue;
    TileSpan span = spans[i];
    span.start_fs -= r.start_fs;
    span.end_fs -= r.start_fs;
    rec->spans.push_back(span);
  }
  const auto tensors = tensors_of(r.op);
  for (std::size_t level = 0; level < sram_levels_; ++level) {
    for (std::size_t a = 0; a < memory_.tag_arrays(level); ++a) {
      const CacheTags& tags = memory_.tags(level, a);
      const Bytes block_bytes = tags.tracking_bytes();
      tags.for_each_block([&](Bytes block, std::uint64_t valid, std::uint64_t last_use) {
        for (std::size_t t = 0; t < tensors.size(); ++t) {
          const Tensor& tensor = *tensors[t];
          if (block + block_bytes <= tensor.address || block >= tensor.address + tensor.bytes) continue;
          rec->resident.push_back(OpRecord::Resident{
              static_cast<std::uint32_t>(level), static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(t),
              static_cast<std::int64_t>(block) - static_cast<std::int64_t>(tensor.address), valid, last_use});
        }
      });
    }
  }
  std::stable_sort(rec->resident.begin(), rec->resident.end(),
                   [](const OpRecord::Resident& x, const OpRecord::Resident& y) { return x.last_use < y.last_use; });
  // The clock course it ran at, and its units' time split into compute, memory stall and idle.
  std::vector<ClockSegment> segments = clock_course(r.clock_changes, r.clock_state, r.start_fs, end_fs);
  if (held) segments = held->own_course(segments);
  // The op ends when its longest-resident unit does: that unit's time sets how the op's follows the clock (the units
  // with less work, or none, wait on it). The stall splits between latency and bandwidth as the run report splits it
  // (sim/engine/engine.cpp).
  double busy = 0, resident = 0;
  for (const auto& u : e.units) {
    if (static_cast<double>(u.resident_fs) <= resident) continue;
    resident = static_cast<double>(u.resident_fs);
    busy = static_cast<double>(u.busy_fs);
    for (const auto w : u.waited_fs) busy += static_cast<double>(w);
  }
  const double chunk_fs = static_cast<double>(e.latency_fs) + static_cast<double>(e.queueing_fs);
  const double latency_share = chunk_fs > 0 ? static_cast<double>(e.latency_fs) / chunk_fs : 1.0;
  const auto critical_fs = static_cast<TimeFs>(resident);
  rec->work = ClockScaledWork(std::move(segments), unit_time_shares(busy, resident, latency_share, 1, critical_fs));
  // The op ran alone: the samples over its time are its own.
  if (throttled() && rec->duration_fs > 0) {
    rec->activity = power_profile(r.samples, r.start_fs, end_fs);
    if (held) rec->activity = held->own_profile(rec->activity);
  }
  return rec;
}

std::vector<ClockSegment> DeviceOpReplay::clock_course(std::uint64_t changes_from, std::size_t state, TimeFs start_fs,
                                                       TimeFs end_fs) const {
  std::vector<ClockSegment> segments;
  TimeFs at = start_fs;
  for (const ClockChange& change : clock_.changes_from(changes_from)) {
    if (change.at_fs > at) segments.push_back(ClockSegment{change.at_fs - at, clock_.states()[state].clock_hz});
    at = std::max(at, change.at_fs);
    state = change.state;
  }
  if (end_fs > at || segments.empty()) segments.push_back(ClockSegment{end_fs - at, clock_.states()[state].clock_hz});
  return segments;
}

std::vector<ProgressKnot> DeviceOpReplay::power_profile(std::size_t samples_from, TimeFs start_fs, TimeFs end_fs) {
  // The compute domain's dynamic energy at the top state's voltage, and the rest as it is, weigh each sample.
  std::vector<ProgressKnot> profile;
  governor_->mark(end_fs);
  const auto& trace = governor_->trace();
  const Volts top_v = clock_.states().back().voltage_v;
  double total = 0;
  std::vector<std::pair<TimeFs, double>> cumulative;
  for (std::size_t i = samples_from; i < trace.size(); ++i) {
    const PowerSample& sample = trace[i];
    if (sample.end_fs <= start_fs || sample.start_fs >= end_fs) continue;
    // A sample that began before the start (the clock first moved while it ran): its part after it.
    const double seconds = fs_to_seconds(std::min(sample.end_fs, end_fs) - std::max(sample.start_fs, start_fs));
    total +=
        (sample.power.domain_dynamic_w * dynamic_energy_scale(top_v, sample.voltage_v) + sample.power.other_dynamic_w) *
        seconds;
    cumulative.emplace_back(std::min(sample.end_fs, end_fs) - start_fs, total);
  }
  if (total > 0) {
    profile.push_back(ProgressKnot{0, 0.0});
    for (const auto& [when, sum] : cumulative) profile.push_back(ProgressKnot{when, std::min(1.0, sum / total)});
    profile.back().done = 1.0;
  }
  return profile;
}

void DeviceOpReplay::replay(std::size_t op, const OpRecord& rec, TimeFs start_fs) {
  OpExecution& e = executions_[op];
  e.executed_work = rec.executed_work;
  e.executed_flops = rec.executed_flops;
  e.tiles_done = rec.tiles_done;
  e.bytes = rec.bytes;
  e.latency_fs = rec.latency_fs;
  e.queueing_fs = rec.queueing_fs;
  // The record holds engine time up to the fastest state it ran at; the replay may run faster, and its engine time
  // at a state the record never reached would find no entry and be dropped (the op reporting no busy clock).
  e.busy_at_state_fs = rec.busy_at_state_fs;
  e.busy_at_state_fs.resize(std::max(e.busy_at_state_fs.size(), clock_.states().size()), 0);
  e.units = rec.units;
  for (auto& u : e.units) {
    if (u.first_fs == kNever) continue;
    u.first_fs = shifted(u.first_fs, start_fs, true);
    u.last_fs = shifted(u.last_fs, start_fs, true);
    u.since_fs = shifted(u.since_fs, start_fs, true);
  }
  e.replay_start_fs = start_fs;
  e.replay_end_fs = start_fs + rec.duration_fs;
  e.replay_progress.clear();
  e.replay_units_spent_fs = 0;
  e.replay_units_left_share = 1;
  // Under a power cap the replay runs at the clock the live governor applies: its end and pace follow it.
  Replaying live;
  live.op = op;
  live.record = &rec;
  live.progress = ReplayProgress(rec.work);
  live.start_fs = live.read_fs = start_fs;
  live.read_state = clock_.state();
  live.spans_at_end = throttled();
  live.busy_passed_fs.assign(e.busy_at_state_fs.size(), 0.0);
  for (std::size_t s = 0; s < rec.busy_at_state_fs.size() && s < clock_.states().size(); ++s) {
    live.busy_cycles += static_cast<double>(rec.busy_at_state_fs[s]) * clock_.states()[s].clock_hz;
  }
  if (throttled() || !live.progress.as_recorded(clock_.clock_hz())) rebook(live);
  // The installed blocks are ready when the op ends. Under a cap the governor may still move that end earlier, and
  // the op after it would then wait on hits for data that its twin had long written: the earliest end the record
  // allows, the clock at its top state from now on, is when they are ready.
  const TimeFs ready_fs =
      throttled() ? std::min(e.replay_end_fs, start_fs + live.progress.remaining_fs(clock_.states().back().clock_hz))
                  : e.replay_end_fs;
  memory_.add_replayed(rec.levels, rec.dram_read_bytes, rec.dram_written_bytes);
  if (dram_ != nullptr && rec.detailed_dram)
    dram_->add_replayed(static_cast<std::uint32_t>(op), rec.dram, rec.dram_asked_burst_bytes, start_fs);
  if (!live.spans_at_end) {
    auto& spans = dispatcher_.tile_spans();
    for (TileSpan span : rec.spans) {
      span.op = static_cast<std::uint32_t>(op);
      span.start_fs += start_fs;
      span.end_fs += start_fs;
      spans.add(span);
    }
  }
  replaying_.push_back(std::move(live));
  // The cache contents the twin left of its own tensors, at this op's tensors, oldest use first so that LRU order
  // follows. A block at either end of one of its tensors may also hold sectors of other tensors (tensors are aligned
  // to far less than a tracking block: 4 KiB against 64 KiB on TPU-v4's CMEM). The simulated op keeps such a block
  // resident by touching it, with those sectors in it, whereas the install here can evict it first and allocate it
  // anew with the op's sectors only: a 8 KiB activation read by every tile of a GEMM then drops the residual beside
  // it, which the next op reads from DRAM instead. So each time the install touches such a block, the other
  // tensors' sectors it held at the replay's start are written with it.
  const auto tensors = tensors_of(op);
  const auto foreign = foreign_sectors(rec, tensors);
  install_resident(
      rec.resident,
      [&](const OpRecord::Resident& r) { return r.tensor < tensors.size() ? tensors[r.tensor] : nullptr; },
      [&](const OpRecord::Resident& r, CacheTags& tags, Bytes lo, Bytes hi) {
        tags.write(lo, hi - lo, ready_fs);
        if (foreign.empty()) return;
        const Bytes block_bytes = tags.tracking_bytes();
        for (Bytes block = lo / block_bytes * block_bytes; block < hi; block += block_bytes) {
          for (const auto& f : foreign) {
            if (f.level != r.level || f.array != r.array || f.block != block) continue;
            for_each_valid_run(static_cast<std::int64_t>(block), f.valid, tags.sector_bytes(), 0,
                               std::numeric_limits<std::int64_t>::max(),
                               [&](Bytes flo, Bytes fhi) { tags.write(flo, fhi - flo); });
          }
        }
      });
}

std::vector<DeviceOpReplay::ForeignSectors> DeviceOpReplay::foreign_sectors(
    const OpRecord& rec, const std::vector<const Tensor*>& tensors) const {
  std::vector<ForeignSectors> out;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> arrays;
  for (const auto& r : rec.resident) {
    if (std::find(arrays.begin(), arrays.end(), std::make_pair(r.level, r.array)) == arrays.end())
      arrays.emplace_back(r.level, r.array);
  }
  for (const auto& [level, array] : arrays) {
    const CacheTags& tags = memory_.tags(level, array);
    const Bytes block_bytes = tags.tracking_bytes();
    const Bytes sector = tags.sector_bytes();
    // The blocks at the tensors' ends (a block inside a tensor holds nothing else).
    std::vector<Bytes> ends;
    for (const auto* t : tensors) {
      if (t->bytes == 0) continue;
      ends.push_back(t->address / block_bytes * block_bytes);
      ends.push_back((t->address + t->bytes - 1) / block_bytes * block_bytes);
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    // Looked up, not found by a walk over the tags: a level holds thousands of blocks, an op's tensors a few ends.
    for (const Bytes block : ends) {
      const std::uint64_t valid = tags.valid_sectors(block);
      std::uint64_t other = 0;
      for (std::uint64_t bits = valid; bits != 0; bits &= bits - 1) {
        const auto s = static_cast<unsigned>(__builtin_ctzll(bits));
        const Bytes lo = block + s * sector;
        bool own = false;
        for (const auto* t : tensors) own = own || (lo < t->address + t->bytes && t->address < lo + sector);
        if (!own) other |= 1ULL << s;
      }
      if (other != 0) out.push_back(ForeignSectors{level, array, block, other});
    }
  }
  return out;
}

TimeFs DeviceOpReplay::tiles_out_fs(std::size_t op) const {
  for (const auto& r : replaying_) {
    if (r.op == op) return tiles_out_of(r);
  }
  return executions_[op].replay_end_fs;
}

double DeviceOpReplay::replay_span(const Replaying& r) const {
  const auto duration = static_cast<double>(r.record->duration_fs);
  return duration > 0 ? static_cast<double>(executions_[r.op].replay_end_fs - r.start_fs) / duration : 1.0;
}

TimeFs DeviceOpReplay::tiles_out_of(const Replaying& r) const {
  // At the replay's pace, as the units' times (rebook).
  return r.start_fs + round_fs(static_cast<double>(r.record->tiles_out_fs) * replay_span(r));
}

void DeviceOpReplay::rebook(Replaying& r) {
  OpExecution& e = executions_[r.op];
  const OpRecord& rec = *r.record;
  const TimeFs now = r.read_fs;
  const Hertz clock_hz = clock_.clock_hz();
  r.retimed = true;
  // The units' time spent so far stays as it was spent; the stretch below applies to the rest.
  double units_fs = 0;
  for (const auto& u : e.units) units_fs += static_cast<double>(u.resident_fs);
  const double units_spent_fs = replay_units_spent_fs(e, units_fs, now);
  e.replay_end_fs = now + r.progress.remaining_fs(clock_hz);
  // The pace: the knots passed so far, then those ahead at the clock now in force; of the counters, along the
  // record's activity, and of the recorded time (for the tile spans).
  for (auto* knots : {&e.replay_progress, &r.time_knots}) {
    if (knots->empty()) knots->push_back(ProgressKnot{r.start_fs, 0.0});
    while (knots->size() > 1 && knots->back().at_fs > now) knots->pop_back();
    r.progress.knots_ahead(now, clock_hz, knots == &e.replay_progress ? rec.activity : kEvenPace, *knots);
  }
  e.replay_units_spent_fs = units_spent_fs;
  e.replay_units_left_share = replay_left(e, 1.0, now);
  // The engine time: the record's cycles, the part done at the clocks it was done at and the rest at this one.
  const double duration = static_cast<double>(rec.duration_fs);
  const double left = duration > 0 ? std::max(0.0, 1.0 - r.progress.done_fs() / duration) : 0.0;
  double busy_live = 0, busy_recorded = 0;
  for (std::size_t s = 0; s < e.busy_at_state_fs.size() && s < r.busy_passed_fs.size(); ++s) {
    double fs = r.busy_passed_fs[s];
    if (s == clock_.state()) fs += r.busy_cycles * left / clock_hz;
    e.busy_at_state_fs[s] = round_fs(fs);
    busy_live += fs;
    if (s < rec.busy_at_state_fs.size()) busy_recorded += static_cast<double>(rec.busy_at_state_fs[s]);
  }
  // The units hold the op's tiles for the replay's length and compute for its engine time.
  const double span = replay_span(r);
  const double busy = busy_recorded > 0 ? busy_live / busy_recorded : 1.0;
  const auto scaled = [](TimeFs t, double by) { return round_fs(static_cast<double>(t) * by); };
  for (std::size_t u = 0; u < e.units.size() && u < rec.units.size(); ++u) {
    const UnitResidency& from = rec.units[u];
    UnitResidency& to = e.units[u];
    if (from.first_fs == kNever) continue;
    to.first_fs = r.start_fs + scaled(from.first_fs, span);
    to.last_fs = r.start_fs + scaled(from.last_fs, span);
    to.since_fs = r.start_fs + scaled(from.since_fs, span);
    to.resident_fs = scaled(from.resident_fs, span);
    to.busy_fs = scaled(from.busy_fs, busy);
    for (std::size_t w = 0; w < to.waited_fs.size(); ++w) to.waited_fs[w] = scaled(from.waited_fs[w], busy);
    // A member of an overlap group stretches with the group's split of compute and stall, not its own: at a slower
    // clock a compute-bound member's engine time grows more than its replay, and fits in its residency in its own
    // proportions.
    WaveFastForward::fit_unit_time(to.resident_fs, to.busy_fs, to.waited_fs);
  }
}

void DeviceOpReplay::clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz /*new_clock_hz*/) {
  // A change that a skip through it makes (step_boundary) is in its hold's course.
  if (!skipping_through_) {
    for (auto& f : forwards_) {
      if (!f.holding && f.held_fs > 0) f.course.push_back(ClockChange{now_fs + f.held_fs, clock_.state()});
    }
  }
  if (group_ && group_->replaying != nullptr && now_fs > group_->read_fs) {
    group_->progress.advance(now_fs - group_->read_fs, old_clock_hz);
    group_->read_fs = now_fs;
  }
  for (auto& r : replaying_) {
    OpExecution& e = executions_[r.op];
    if (now_fs >= e.replay_end_fs) continue;
    // The engine time of the progress since the last reading, at the clock it ran at.
    const double before = r.progress.done_fs();
    r.progress.advance(now_fs - r.read_fs, old_clock_hz);
    r.read_fs = now_fs;
    const double duration = static_cast<double>(r.record->duration_fs);
    if (duration > 0 && r.read_state < r.busy_passed_fs.size()) {
      r.busy_passed_fs[r.read_state] += r.busy_cycles * (r.progress.done_fs() - before) / duration / old_clock_hz;
    }
    r.read_state = clock_.state();
    rebook(r);
    dispatcher_.retime_replay(r.op, e.replay_end_fs, tiles_out_of(r));
  }
}

WaveFastForward::Boundary DeviceOpReplay::boundary_of(std::size_t op, TimeFs now) const {
  WaveFastForward::Boundary b;
  b.at_fs = now;
  const OpExecution& e = executions_[op];
  // The state class.
  b.state.push_back(clock_.state());  // at kClockStateClass
  b.epoch.push_back(clock_.changes());
  b.slots.assign(kProgressClasses, 0);
  std::uint64_t queued = 0, outstanding = 0;
  for (const auto* unit : units_) unit->add_progress(op, b.slots, queued, outstanding);
  b.state.push_back(half_octave_class(outstanding));
  // The refreshes the DRAM's channels have postponed while busy: a channel may owe up to its limit (8 rounds on HBM3,
  // 31 us) and pays them back once it reaches it, so the waves of a saturating stream run faster until the debt is
  // full, then settle. Waves that repeat while it grows are no steady state (MI300X's STREAM copy, 27 waves: windows
  // of its first waves skipped at their cost would make it 4.5 % short of --exact).
  if (dram_ != nullptr) b.state.push_back(half_octave_class(dram_->device().refresh_owed()));
  b.dram_backlog_bytes = memory_.bytes_at_dram();
  b.dram_moved_bytes = memory_.dram_bytes_read() + memory_.dram_bytes_written();
  // The counters: what a wave costs, and everything a skipped wave books.
  const auto levels = memory_.counters();
  b.compared.push_back(now);
  for (const auto& c : levels) {
    b.compared.push_back(c.read_bytes);
    b.compared.push_back(c.miss_bytes);
  }
  b.compared.push_back(memory_.dram_bytes_read() + memory_.dram_bytes_written());
  CounterCursor cursor{&b.booked};
  for (const auto& c : levels) {
    LevelCounters::for_each_counter(c, [&](auto v) { cursor.push(v); });
  }
  cursor.push(memory_.dram_bytes_read());
  cursor.push(memory_.dram_bytes_written());
  if (dram_ != nullptr) {
    const OpDramCounters d = op < dram_->op_counters().size() ? dram_->op_counters()[op] : OpDramCounters{};
    OpDramCounters::for_each_counter(d, [&](auto v) { cursor.push(v); });
    cursor.push(dram_->asked_burst_bytes());
  }
  cursor.push(e.latency_fs);
  cursor.push(e.queueing_fs);
  for (const auto v : e.bytes) cursor.push(v);
  for (const auto v : e.busy_at_state_fs) cursor.push(v);
  for (const auto& u : e.units) {
    cursor.push(u.busy_fs);
    cursor.push(u.resident_fs + (u.resident > 0 ? now - u.since_fs : 0));
    for (const auto v : u.waited_fs) cursor.push(v);
  }
  return b;
}

void DeviceOpReplay::set_units(std::vector<ComputeUnit*> units) {
  units_ = std::move(units);
  // One slot of the first unit is the metronome of the step boundaries (ComputeUnit::watch_steps).
  if (store_.fast_forward && !units_.empty()) units_.front()->watch_steps(true);
}

DeviceOpReplay::Forward& DeviceOpReplay::forward_of(std::size_t op) {
  auto it = std::find_if(forwards_.begin(), forwards_.end(), [op](const Forward& f) { return f.op == op; });
  if (it != forwards_.end()) return *it;
  forwards_.push_back(Forward{});
  forwards_.back().op = op;
  return forwards_.back();
}

OpReplayHook::WaveSkip DeviceOpReplay::wave_boundary(std::size_t op, std::uint64_t tile, TimeFs now) {
  if (!store_.fast_forward || units_.empty() || policy_.others_in_flight(op)) {
    // An overlap is not a steady state of this op alone.
    auto it = std::find_if(forwards_.begin(), forwards_.end(), [op](const Forward& f) { return f.op == op; });
    if (it != forwards_.end() && it->skips.empty()) forwards_.erase(it);
    return {};
  }
  Forward& f = forward_of(op);
  if (std::any_of(f.skips.begin(), f.skips.end(), [](const Forward::Skipped& s) { return s.inside_tiles; })) {
    return f.period_skips_refused ? WaveSkip{} : period_boundary(f, tile, now);
  }
  if (f.wave_skips_refused) return {};
  const std::uint64_t wave = policy_.wave_tiles();
  const std::uint64_t full_waves_left = (policy_.tiles(op) - tile) / wave;
  const TimeFs bound_fs = governor_ != nullptr ? governor_->skip_bound_fs(now) : kNever;
  const auto& spans = dispatcher_.tile_spans().spans();
  auto boundary = boundary_of(op, now);
  boundary.mark = spans.size();
  const auto skip = f.detector.boundary(std::move(boundary), full_waves_left, bound_fs);
  if (skip.waves == 0) {
    f.last_boundary_fs = now;
    return {};
  }
  // The skipped tiles' work, exactly, from their steps. Their reads and writes pass through the cache tags, wave by
  // wave and step by step across a wave's tiles as they run, as inside tiles: what the op leaves in the caches is
  // what the next op finds (a decode GEMV's output, written by its last waves, is the activation's input; without
  // the touch the activation read it from DRAM again, 42 KB instead of 22 KB and 3.55 us instead of 2.99 on TPU-v4).
  // Which unit runs a skipped tile only matters for the levels private to a unit; a wave's tiles go round the units.
  // The skip is a trial until the touches are done: the waves it was detected on may have missed what the skipped
  // ones hit (a cache still filling with operands later tiles reuse: TPU-v4's 4096^3 GEMM, whose operands fit in
  // CMEM, read 11x its DRAM bytes). The touches count each cache level's misses; if they differ from what the skip
  // would book, the caches are put back and the op's waves are simulated.
  Flops flops = 0;
  PhaseWork work;
  if (!touch_skipped_waves(op, tile, skip.waves, level_misses(skip.booked), now, flops, work)) {
    f.wave_skips_refused = true;
    f.last_boundary_fs = now;
    return {};
  }
  note_skip(f, skip, false, now, clock_.state());
  if (governor_ != nullptr) governor_->skip_windows(now, skip.hold_fs);
  Forward::Skipped& skipped = f.skips.back();
  for (std::size_t i = skip.window_mark; i < spans.size(); ++i) {
    if (spans[i].op == op) skipped.wave_spans.push_back(spans[i]);
  }
  return book_skipped_waves(f, skip, flops, work, now);
}

bool DeviceOpReplay::touch_skipped_waves(std::size_t op, std::uint64_t first_tile, std::uint64_t waves,
                                         const std::vector<Bytes>& booked_misses, TimeFs now, Flops& flops,
                                         PhaseWork& work) {
  const OpExecution& e = executions_[op];
  const std::uint64_t wave = policy_.wave_tiles();
  auto contents_before = memory_.cache_contents();
  std::vector<Bytes> touched_misses(memory_.sram_levels(), 0);
  TileStep step;
  for (std::uint64_t first = first_tile; first < first_tile + waves * wave; first += wave) {
    std::uint32_t most_steps = 0;
    for (std::uint64_t t = first; t < first + wave; ++t) most_steps = std::max(most_steps, e.lowering->steps(t));
    for (std::uint32_t s = 0; s < most_steps; ++s) {
      for (std::uint64_t t = first; t < first + wave; ++t) {
        if (s >= e.lowering->steps(t)) continue;
        e.lowering->step(t, s, step);
        flops += step.executed_flops;
        work += step.work();
        const std::uint64_t unit = (t - first) % units_.size();
        for (const Chunk& chunk : step.reads) memory_.touch(unit, step.view(chunk), false, now, touched_misses.data());
        for (const Chunk& chunk : step.writes) memory_.touch(unit, step.view(chunk), true, now);
      }
    }
  }
  if (WaveFastForward::misses_agree(booked_misses, touched_misses, cache_capacities())) return true;
  memory_.restore_cache_contents(std::move(contents_before));
  return false;
}

OpReplayHook::WaveSkip DeviceOpReplay::period_boundary(Forward& f, std::uint64_t tile, TimeFs now) {
  const std::size_t op = f.op;
  const std::uint64_t wave = policy_.wave_tiles();
  const std::uint64_t full_waves_left = (policy_.tiles(op) - tile) / wave;
  // The op's own time, and no clock-change epoch: a wave whose clock dips and climbs back repeats as a whole. A
  // change pending at a boundary is no point to repeat from (GovernorModule::skip_periods).
  WaveFastForward::Boundary b = boundary_of(op, now);
  b.at_fs = now + f.held_fs;
  b.compared.front() += f.held_fs;
  b.epoch.clear();
  const bool pending = governor_ != nullptr && governor_->skip_bound_fs(now) == 0;
  b.state.push_back(pending ? 1 : 0);
  const auto skip = f.periods.boundary(std::move(b), full_waves_left);
  if (skip.waves == 0 || pending) return {};
  Flops flops = 0;
  PhaseWork work;
  // Every skipped wave passes through the tags, as for any whole-wave skip: a window of a few waves need not show an
  // access pattern of a longer period (TPU-v4's mlp.down, 762 waves of 4 tiles, reloads its activations' panels
  // every few dozen waves; its last waves alone missed at the window's rate, and the skip read 5.8% less from DRAM
  // than --exact).
  // A period whose skipped waves would not have missed as it did is not the op's steady state: the op's waves are
  // simulated on, with no further trial (each costs a touch of the waves it would skip).
  if (!touch_skipped_waves(op, tile, skip.waves, level_misses(skip.booked), now, flops, work)) {
    f.period_skips_refused = true;
    return {};
  }
  if (governor_ != nullptr && !governor_->skip_periods(now, skip.hold_fs)) return {};
  // The clock's course over one window, from the state it began in, repeated for each window skipped.
  const TimeFs end_fs = now + f.held_fs, start_fs = end_fs - skip.wave_fs;
  std::vector<ClockChange> window{{0, clock_.state()}};
  for (const ClockChange& c : f.course) {
    if (c.at_fs <= start_fs) window.front().state = c.state;
    if (c.at_fs > start_fs && c.at_fs < end_fs) window.push_back(ClockChange{c.at_fs - start_fs, c.state});
  }
  Forward::Skipped skipped = skipped_at(skip, now, clock_.state());
  for (std::uint64_t w = 0; w < skip.waves / skip.stride; ++w) {
    for (const ClockChange& c : window) skipped.course.push_back(ClockChange{w * skip.wave_fs + c.at_fs, c.state});
  }
  for (const ClockChange& c : skipped.course) f.course.push_back(ClockChange{end_fs + c.at_fs, c.state});
  f.held_fs += skip.hold_fs;
  f.course.push_back(ClockChange{now + f.held_fs, clock_.state()});
  f.skips.push_back(std::move(skipped));
  // The counters now include the skipped waves: both detectors compare afresh; the windows seen steady inside tiles
  // stay (the waves after the skip run in the same states).
  f.detector = WaveFastForward{};
  f.steps.restart();
  return book_skipped_waves(f, skip, flops, work, now);
}

OpReplayHook::WaveSkip DeviceOpReplay::book_skipped_waves(Forward& f, const WaveFastForward::Skip& skip, Flops flops,
                                                          const PhaseWork& work, TimeFs now) {
  OpExecution& e = executions_[f.op];
  const std::uint64_t tiles = skip.waves * policy_.wave_tiles();
  f.last_boundary_fs = now;
  e.executed_flops += flops;
  e.executed_work += work;
  e.tiles_done += tiles;
  store_.skipped_waves += skip.waves;
  book_skip(f, skip, flops, work, false, now);
  return WaveSkip{tiles, skip.hold_fs};
}

WaveFastForward::Boundary DeviceOpReplay::step_state(std::size_t op, TimeFs now,
                                                     const std::vector<ComputeUnit::SlotSteps>& slots) {
  const OpExecution& e = executions_[op];
  WaveFastForward::Boundary b = boundary_of(op, now);
  // The work done so far, continuously: what the op's steps issued minus what their phases have still to spend.
  const bool by_flops = e.executed_flops > 0;
  unfinished_.assign(executions_.size(), UnfinishedWork{});
  for (const auto* unit : units_) unit->add_unfinished_work(now, unfinished_);
  b.lane_groups = pace_groups(slots);
  std::vector<std::uint32_t> lead;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::uint32_t g = b.lane_groups[i];
    if (g >= lead.size()) lead.resize(g + 1, 0);
    lead[g] = std::max(lead[g], slots[i].computed);
  }
  for (const auto& s : slots) {
    b.lanes.push_back(s.computed);
    if (!by_flops) b.progress += s.computed;
  }
  if (by_flops) {
    const double done = static_cast<double>(e.executed_flops) - unfinished_[op].flops;
    b.progress = done > 0 ? static_cast<std::uint64_t>(done + 0.5) : 0;
  }
  // Time and each level's reads and writes follow the work; misses and DRAM bytes come in bursts (kBurstyTolerance).
  {
    const auto levels = memory_.counters();
    b.compared = {now};
    for (const auto& c : levels) {
      b.compared.push_back(c.read_bytes);
      b.compared.push_back(c.write_bytes);
      b.bursty.push_back(c.miss_bytes);
    }
    b.bursty.push_back(memory_.dram_bytes_read() + memory_.dram_bytes_written());
  }
  // The slots' progress normalised: each slot by how many steps it lags the slot furthest ahead at its pace.
  b.slots.assign(kProgressClasses, 0);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    ++b.slots[std::min<std::uint64_t>(lead[b.lane_groups[i]] - slots[i].computed, kProgressClasses - 1)];
  }
  // No tile may start or end between the boundaries compared: the slots running the op, and the tiles done.
  b.state.push_back(slots.size());
  b.state.push_back(lead.size());
  b.epoch.push_back(e.tiles_done);
  return b;
}

std::vector<std::uint32_t> DeviceOpReplay::pace_groups(const std::vector<ComputeUnit::SlotSteps>& slots) {
  // add_slot_steps lists a unit's slots together; a unit's tiles of the op share its engines, so the lanes of units
  // running as many of them go at one pace.
  std::vector<std::uint32_t> groups(slots.size(), 0);
  std::size_t first = 0;
  for (std::size_t i = 1; i <= slots.size(); ++i) {
    if (i < slots.size() && slots[i].unit == slots[first].unit) continue;
    for (std::size_t k = first; k < i; ++k) groups[k] = static_cast<std::uint32_t>(i - first - 1);
    first = i;
  }
  return groups;
}

TimeFs DeviceOpReplay::step_boundary(std::size_t op, TimeFs now) {
  if (!store_.fast_forward || units_.empty() || policy_.others_in_flight(op)) return 0;
  Forward& f = forward_of(op);
  std::vector<ComputeUnit::SlotSteps> slots;
  for (const auto* unit : units_) unit->add_slot_steps(op, slots);
  if (slots.empty()) return 0;
  OpExecution& e = executions_[op];
  const std::uint64_t buffers = std::max<std::uint32_t>(e.stages, 2);
  const bool by_flops = e.executed_flops > 0;
  WaveFastForward::Window window;
  WaveFastForward::Boundary state = step_state(op, now, slots);
  const std::vector<std::uint32_t> groups = state.lane_groups;
  std::vector<std::uint64_t> state_class = state.state;
  if (!f.steps.steady_window(std::move(state), buffers, window) || window.window_fs == 0) return 0;

  // Every lane keeps kKeptStepQuanta of its tile (its last steps, whose writes end the tile). In a partial
  // wave (two tiles on some units, one on others) the lanes run at two paces and each skips its own steps of the
  // same time; their positions drift apart as they would, and what that does to their sharing of operand blocks shows
  // in the window's misses, and in the trial's below.
  std::vector<std::uint64_t> left;
  for (const auto& s : slots) left.push_back(s.steps - s.next_load);
  const std::uint64_t keep = kKeptStepQuanta * ComputeUnit::step_quantum(e.stages);
  const TimeFs governor_bound_fs = governor_ != nullptr ? governor_->skip_bound_fs(now) : kNever;
  std::vector<std::uint32_t> skip_steps =
      WaveFastForward::steps_to_skip(window, left, groups, keep, buffers, governor_bound_fs);
  // Through the governor's next decision, when the state it moves the clock to was seen steady (in the same class
  // but for the clock's state) and its windows were measured in a skip there: the steps before the change skip at
  // this window's rates, those after it at the seen window's (WaveFastForward::seen_window, GovernorPolicy::
  // through_bound).
  std::optional<GovernorPolicy::Through> through;
  std::vector<std::uint32_t> after_steps(slots.size(), 0);
  WaveFastForward::Window after_window;
  if (governor_ != nullptr && governor_bound_fs != kNever) {
    through = governor_->through_bound(now);
    const WaveFastForward::Window* seen = nullptr;
    if (through) {
      state_class[kClockStateClass] = through->state;
      seen = f.steps.seen_window(state_class);
    }
    if (seen != nullptr) {
      auto before = WaveFastForward::steps_to_skip(window, left, groups, keep, buffers, through->change_after_fs);
      std::vector<std::uint64_t> left_after = left;
      for (std::size_t lane = 0; lane < left.size(); ++lane) left_after[lane] -= before[lane];
      // The steps before the change take at most change_after_fs, so those after it end by the bound.
      const TimeFs after_bound_fs = through->bound_fs == kNever ? kNever : through->bound_fs - through->change_after_fs;
      auto after = WaveFastForward::steps_to_skip(*seen, left_after, groups, keep, buffers, after_bound_fs);
      // Both parts, so that the hold's course has the time before the change at the state the governor counted it
      // at (the steps before it round down to none when the change is less than a buffer's steps away: the next
      // boundary then comes after it). steps_to_skip gives every lane some steps or none.
      if (before.front() > 0 && after.front() > 0) {
        skip_steps = std::move(before);
        after_steps = std::move(after);
        after_window = *seen;
      }
    }
    if (after_window.window_fs == 0) through.reset();
  }
  std::uint32_t rounds = 0;
  std::uint64_t lane_steps = 0;
  for (std::size_t lane = 0; lane < slots.size(); ++lane) {
    rounds = std::max(rounds, skip_steps[lane] + after_steps[lane]);
    lane_steps += skip_steps[lane] + after_steps[lane];
  }
  if (rounds == 0) return 0;
  const std::vector<Bytes> capacities = cache_capacities();
  const WaveFastForward::Window& last_window = through ? after_window : window;
  const std::uint32_t touch_from = WaveFastForward::first_step_through_tags(
      last_window, std::max<std::uint64_t>(1, lane_steps / rounds), rounds, capacities);
  // Their work, exactly. The skip is a trial until the touched steps are done, as a whole-wave skip is: the window
  // may not show the rate at which the skipped steps miss (an op's first skips, while its first wave's operands still
  // fill the caches: V100's GPT-3 GEMMs missed in L2 0.71 to 1.56 times the window's rate there, and mlp.down read
  // 3.9% less from DRAM than --exact; MI300X's 8192^3 GEMM missed in L2 2.8% more than its windows). The touched
  // steps' second half counts its misses: the first half finds the caches as the window left them, not as the
  // untouched steps would have (it misses what those would have loaded: counted, a steady GEMM's touches missed up to
  // 10% more than its window, and every skip was refused), and by the second half a level has allocated its capacity
  // anew. In a steady state they miss exactly at the window's rate. If they differ by more than kSkipMissTolerance,
  // the caches are put back and the detector starts over from the next boundaries, which simulate on.
  // The steps pass in rounds of equal time: in each, every lane its share of its skipped steps, in step order.
  const std::uint32_t count_from = touch_from + (rounds - touch_from) / 2;
  // Per part (before the change, after it): the steps' work, and that of the counted ones.
  std::array<Flops, 2> flops{}, counted_flops{};
  std::array<std::uint64_t, 2> part_lane_steps{}, counted_lane_steps{};
  std::array<PhaseWork, 2> work;
  Flops useful_flops = 0;
  TileStep step;
  std::optional<std::vector<std::vector<CacheTags>>> contents_before;
  if (count_from < rounds || through) contents_before = memory_.cache_contents();
  std::vector<Bytes> counted_misses(memory_.sram_levels(), 0);
  for (std::uint32_t round = 0; round < rounds; ++round) {
    const bool touched = round >= touch_from;
    const bool counted = round >= count_from;
    for (std::size_t lane = 0; lane < slots.size(); ++lane) {
      const auto& s = slots[lane];
      const std::uint64_t steps = skip_steps[lane] + after_steps[lane];
      const auto from = static_cast<std::uint32_t>(steps * round / rounds);
      const auto to = static_cast<std::uint32_t>(steps * (round + 1) / rounds);
      for (std::uint32_t k = from; k < to; ++k) {
        const std::size_t part = k < skip_steps[lane] ? 0 : 1;
        e.lowering->step(s.tile, s.next_load + k, step);
        flops[part] += step.executed_flops;
        useful_flops += step.useful_flops;
        work[part] += step.work();
        ++part_lane_steps[part];
        if (!touched) continue;
        if (counted) {
          counted_flops[part] += step.executed_flops;
          ++counted_lane_steps[part];
        }
        for (const Chunk& chunk : step.reads) {
          memory_.touch(s.unit, step.view(chunk), false, now, counted ? counted_misses.data() : nullptr);
        }
        for (const Chunk& chunk : step.writes) memory_.touch(s.unit, step.view(chunk), true, now);
      }
    }
  }
  const WaveFastForward::Window* windows[2] = {&window, &after_window};
  std::array<std::uint64_t, 2> progress{};
  std::array<WaveFastForward::Skip, 2> skips;
  TimeFs hold_fs = 0;
  for (std::size_t part = 0; part < 2; ++part) {
    progress[part] = by_flops ? flops[part] : part_lane_steps[part];
    if (progress[part] == 0) continue;
    const WaveFastForward::Window& w = *windows[part];
    // The window's costs in proportion to the work skipped.
    skips[part].waves = rounds;
    skips[part].hold_fs = WaveFastForward::scaled(w.window_fs, progress[part], w.progress);
    skips[part].wave_fs = skips[part].hold_fs;
    skips[part].booked = w.booked;
    for (auto& v : skips[part].booked) v = WaveFastForward::scaled(v, progress[part], w.progress);
    hold_fs += skips[part].hold_fs;
  }
  bool taken = true;
  // A skip through the change must reach it, and end before a window at the new state decides.
  if (through) taken = hold_fs >= through->change_after_fs && hold_fs <= through->bound_fs;
  if (taken && count_from < rounds) {
    std::vector<Bytes> expected_misses(memory_.sram_levels(), 0);
    for (std::size_t part = 0; part < 2; ++part) {
      const std::uint64_t counted_progress = by_flops ? counted_flops[part] : counted_lane_steps[part];
      if (counted_progress == 0) continue;
      const std::vector<Bytes> misses = level_misses(windows[part]->booked);
      for (std::size_t level = 0; level < misses.size(); ++level) {
        expected_misses[level] += WaveFastForward::scaled(misses[level], counted_progress, windows[part]->progress);
      }
    }
    taken = WaveFastForward::misses_agree(expected_misses, counted_misses, capacities, kSkipMissTolerance);
  }
  if (!taken) {
    memory_.restore_cache_contents(std::move(*contents_before));
    f.steps.restart();
    return 0;
  }
  e.useful_flops += useful_flops;
  for (std::size_t lane = 0; lane < slots.size(); ++lane) {
    units_[slots[lane].unit]->skip_steps(op, slots[lane].tile, skip_steps[lane] + after_steps[lane]);
  }
  store_.skipped_steps += lane_steps;
  if (through) ++store_.skips_through_changes;
  // The governor counts the skipped windows before the skip's counters are booked (its reading at `now` closes the
  // windows so far); a change inside the stretch moves the clock now, as what runs after the skip runs after it. The
  // steps before the change ran at the state before it.
  const std::size_t state_before = clock_.state();
  if (governor_ != nullptr) {
    if (through) {
      skipping_through_ = true;
      governor_->skip_through(now, hold_fs);
      skipping_through_ = false;
    } else {
      governor_->skip_windows(now, hold_fs);
    }
  }
  for (std::size_t part = 0; part < 2; ++part) {
    if (progress[part] == 0) continue;
    note_skip(f, skips[part], true, now, part == 0 ? state_before : through->state);
    e.executed_flops += flops[part];
    e.executed_work += work[part];
    book_skip(f, skips[part], flops[part], work[part], true, now);
  }
  if (through) {
    // The clock changed: a new epoch, whose intervals the detector compares afresh.
    f.steps.restart();
    return hold_fs;
  }
  // The detector goes on from its boundaries, moved by what the skip added.
  slots.clear();
  for (const auto* unit : units_) unit->add_slot_steps(op, slots);
  f.steps.skipped_to(step_state(op, now, slots));
  return hold_fs;
}

std::vector<Bytes> DeviceOpReplay::cache_capacities() const {
  std::vector<Bytes> capacities;
  for (std::size_t level = 0; level < memory_.sram_levels(); ++level) {
    capacities.push_back(memory_.cache_capacity_bytes(level));
  }
  return capacities;
}

std::vector<Bytes> DeviceOpReplay::level_misses(const std::vector<std::uint64_t>& booked) const {
  std::vector<Bytes> misses;
  CounterCursor cursor{nullptr, &booked};
  for (std::size_t level = 0; level < memory_.sram_levels(); ++level) {
    LevelCounters c;
    LevelCounters::for_each_counter(c, [&](auto& v) { v = cursor.take(); });
    misses.push_back(c.miss_bytes);
  }
  return misses;
}

DeviceOpReplay::Forward::Skipped DeviceOpReplay::skipped_at(const WaveFastForward::Skip& skip, TimeFs now,
                                                            std::size_t clock_state) {
  Forward::Skipped skipped;
  skipped.skip_fs = now;
  skipped.hold_fs = skip.hold_fs;
  skipped.wave_fs = skip.wave_fs;
  skipped.waves = skip.waves;
  skipped.stride = skip.stride;
  skipped.clock_state = clock_state;
  return skipped;
}

void DeviceOpReplay::note_skip(Forward& f, const WaveFastForward::Skip& skip, bool inside_tiles, TimeFs now,
                               std::size_t clock_state) {
  if (f.skips.empty()) ++store_.fast_forwarded;
  Forward::Skipped skipped = skipped_at(skip, now, clock_state);
  skipped.inside_tiles = inside_tiles;
  f.skips.push_back(std::move(skipped));
  f.course.push_back(ClockChange{now + f.held_fs, clock_state});
  f.held_fs += skip.hold_fs;
  f.course.push_back(ClockChange{now + f.held_fs, clock_.state()});
  // The counters after a skip include the skipped ones: the wave detector may not compare across it; the step
  // detector's boundaries move by them (step_boundary).
  f.detector = WaveFastForward{};
  if (!inside_tiles) {
    f.steps = WaveFastForward{};
    f.periods = WaveFastForward{};
  }
}

void DeviceOpReplay::book_skip(Forward& f, const WaveFastForward::Skip& skip, Flops flops, const PhaseWork& work,
                               bool rated, TimeFs now) {
  const std::size_t op = f.op;
  OpExecution& e = executions_[op];
  // What the skipped waves add, spent over the hold by the power domain's reader (SkippedWaves).
  SkippedWaves& paced = e.skipped;
  paced.hold_fs += skip.hold_fs;
  CounterCursor cursor{nullptr, &skip.booked};
  std::vector<LevelCounters> levels(sram_levels_);
  for (auto& c : levels) {
    LevelCounters::for_each_counter(c, [&](auto& v) { v = cursor.take(); });
  }
  Bytes dram_read = cursor.take();
  Bytes dram_written = cursor.take();
  if (rated) {
    // Each counter was scaled and rounded on its own: the levels' identities (what a level delivers is its hits and
    // misses; what it asks below is what the level below delivers) are restored from the reads, writes and misses.
    for (std::size_t l = 0; l < levels.size(); ++l) {
      auto& c = levels[l];
      c.miss_bytes = std::min(c.miss_bytes, c.read_bytes);
      c.hit_bytes = c.read_bytes - c.miss_bytes;
      if (l + 1 < levels.size()) {
        c.below_read_bytes = levels[l + 1].read_bytes;
        c.below_write_bytes = levels[l + 1].write_bytes;
      }
    }
    if (!levels.empty()) {
      dram_read = levels.back().below_read_bytes;
      dram_written = levels.back().below_write_bytes;
    }
  }
  memory_.add_replayed(levels, dram_read, dram_written);
  if (dram_ != nullptr) {
    OpDramCounters d;
    OpDramCounters::for_each_counter(d, [&](auto& v) { v = cursor.take(); });
    (void)cursor.take();
    // The skipped waves' bursts were asked for as they were served: a wave's asked and served increments differ by
    // the requests in flight at its two boundaries, which multiplied by the waves would unbalance the run's totals.
    const Bytes asked = d.bursts * dram_->burst_bytes();
    // The skipped waves' refreshes are in the booked counters; the channels keep running the op's simulated waves and
    // catch up through the hold when it begins (hold_started).
    dram_->add_replayed(static_cast<std::uint32_t>(op), d, asked, now);
    const std::array<std::uint64_t, 6> commands = {d.acts,         d.pres,          d.read_bursts,
                                                   d.write_bursts, d.refs_all_bank, d.refs_per_bank};
    for (std::size_t c = 0; c < commands.size(); ++c) paced.dram_commands[c] += static_cast<double>(commands[c]);
  }
  e.latency_fs += cursor.take();
  e.queueing_fs += cursor.take();
  paced.bytes.resize(e.bytes.size(), 0.0);
  for (std::size_t level = 0; level < e.bytes.size(); ++level) {
    const Bytes b = cursor.take();
    e.bytes[level] += b;
    paced.bytes[level] += static_cast<double>(b);
  }
  for (auto& v : e.busy_at_state_fs) v += cursor.take();
  for (auto& u : e.units) {
    TimeFs busy = cursor.take();
    const TimeFs resident = cursor.take();
    std::array<TimeFs, kMaxUnitEngines> waits{};
    TimeFs waited = 0;
    for (std::size_t engine = 0; engine < u.waited_fs.size(); ++engine) {
      waits[engine] = cursor.take();
      waited += waits[engine];
    }
    // A unit is resident at most the whole hold, and at least while it computed or waited on its engines (which may
    // add up to more than the hold: fit_unit_time; a compute-bound unit of the GPT-3 block's qkv on MI300X computed
    // 1.4 us more than its 2.1 ms resident, and the run stopped on the end-of-run check).
    const TimeFs booked = std::min(skip.hold_fs, std::max(resident, busy + waited));
    WaveFastForward::fit_unit_time(booked, busy, waits);
    for (std::size_t engine = 0; engine < u.waited_fs.size(); ++engine) u.waited_fs[engine] += waits[engine];
    u.busy_fs += busy;
    u.resident_fs += booked;
    paced.unit_fs += static_cast<double>(booked);
  }
  paced.flops += static_cast<double>(flops);
  const std::array<std::uint64_t, kWorkKinds - 1> added = {work.vector_fma, work.vector_alu, work.exp2, work.reciprocal,
                                                           work.rsqrt};
  for (std::size_t kind = 0; kind < added.size(); ++kind) paced.ops[kind] += static_cast<double>(added[kind]);
}

void DeviceOpReplay::hold_started(std::size_t op, TimeFs now) {
  auto it = std::find_if(forwards_.begin(), forwards_.end(), [op](const Forward& f) { return f.op == op; });
  if (it == forwards_.end() || it->skips.empty() || it->holding) return;
  it->holding = true;
  TimeFs total_hold = 0;
  for (const auto& skipped : it->skips) total_hold += skipped.hold_fs;
  // The refreshes due through the hold are the skipped waves' (booked): idle channels pass them, so that the next
  // op is not charged with them.
  if (dram_ != nullptr) dram_->add_replayed(static_cast<std::uint32_t>(op), OpDramCounters{}, 0, now + total_hold);
  if (governor_ == nullptr) return;
  // The skipped waves pass now, each skip's at the clock it was skipped at; after them the policy is where it is now,
  // moved by the hold (the simulated tail ran before them here, after them in the op it stands for).
  ClockTrajectory hold;
  for (const auto& skipped : it->skips) {
    if (skipped.periodic()) {
      for (const ClockChange& c : skipped.course) {
        hold.changes.push_back(ClockChange{hold.duration_fs + c.at_fs, c.state});
      }
    } else {
      hold.changes.push_back(ClockChange{hold.duration_fs, skipped.clock_state});
    }
    hold.duration_fs += skipped.hold_fs;
  }
  hold.end = governor_->snapshot(now).moved(now, hold.duration_fs);
  governor_->impose(now, hold);
}

void DeviceOpReplay::end_fast_forward(Forward& f) {
  OpExecution& e = executions_[f.op];
  TimeFs total_hold = 0;
  for (const auto& skipped : f.skips) total_hold += skipped.hold_fs;
  for (auto& u : e.units) {
    if (u.first_fs != kNever && u.last_fs >= f.skips.front().skip_fs) u.last_fs += total_hold;
  }
  // The tiles run after each skip ran after its skipped waves; those repeat the last wave before the skip. Each
  // skip's time is in the recorder's times after the earlier skips' holds.
  auto& recorder = dispatcher_.tile_spans();
  TimeFs earlier = 0;
  for (const auto& skipped : f.skips) {
    if (skipped.inside_tiles) {
      recorder.stretch(static_cast<std::uint32_t>(f.op), skipped.skip_fs + earlier, skipped.hold_fs);
      earlier += skipped.hold_fs;
      continue;
    }
    const TimeFs from_fs = skipped.skip_fs + earlier;
    // A skip of whole periods repeats its window's spans as they lie on the op's own time, the skips inside its
    // tiles included (the earlier skips have moved them there).
    std::vector<TileSpan> window_spans;
    if (skipped.periodic()) {
      for (const TileSpan& span : recorder.spans()) {
        if (span.op == f.op && span.start_fs + skipped.wave_fs >= from_fs && span.start_fs < from_fs) {
          TileSpan moved = span;
          moved.start_fs -= earlier;
          moved.end_fs -= earlier;
          window_spans.push_back(moved);
        }
      }
    }
    recorder.shift(static_cast<std::uint32_t>(f.op), from_fs, skipped.hold_fs);
    for (std::uint64_t w = 1; w <= skipped.waves / skipped.stride; ++w) {
      for (TileSpan span : skipped.periodic() ? window_spans : skipped.wave_spans) {
        span.start_fs += earlier + w * skipped.wave_fs;
        span.end_fs += earlier + w * skipped.wave_fs;
        recorder.add(span);
      }
    }
    earlier += skipped.hold_fs;
  }
}

}  // namespace roofsim
