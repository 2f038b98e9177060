#include "sim/engine/op_replay.h"

#include <algorithm>

#include <fmt/format.h>

namespace roofsim {

namespace {

TimeFs shifted(TimeFs t, TimeFs by, bool forward) {
  if (t == kNever) return kNever;
  return forward ? t + by : t - by;
}

}  // namespace

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
  key += fmt::format("|clock {}|", clock_.state());
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
  if (executions_[op].lowering == nullptr || policy_.others_in_flight(op)) {
    ++store_.simulated;
    return kNever;
  }
  std::string key = signature(op);
  if (const OpRecord* record = store_.find(key)) {
    replay(op, *record, now);
    ++store_.replayed;
    return now + record->duration_fs;
  }
  Recording r;
  r.op = op;
  r.signature = std::move(key);
  r.start_fs = now;
  r.levels = memory_.counters();
  r.dram_read = memory_.dram_bytes_read();
  r.dram_written = memory_.dram_bytes_written();
  r.asked = dram_ != nullptr ? dram_->asked_burst_bytes() : 0;
  r.spans = dispatcher_.tile_spans().spans().size();
  r.clock_changes = clock_.changes();
  recordings_.push_back(std::move(r));
  return kNever;
}

void DeviceOpReplay::op_finished(std::size_t op, TimeFs now) {
  for (std::size_t i = 0; i < recordings_.size(); ++i) {
    if (recordings_[i].op != op) continue;
    const Recording r = std::move(recordings_[i]);
    recordings_.erase(recordings_.begin() + static_cast<std::ptrdiff_t>(i));
    if (r.valid && r.clock_changes == clock_.changes() && now - r.start_fs >= shortest_record_fs_) {
      store_.insert(r.signature, record(r, now));
      ++store_.recorded;
    } else {
      ++store_.simulated;
    }
    return;
  }
}

std::unique_ptr<OpRecord> DeviceOpReplay::record(const Recording& r, TimeFs end_fs) const {
  auto rec = std::make_unique<OpRecord>();
  const OpExecution& e = executions_[r.op];
  rec->duration_fs = end_fs - r.start_fs;
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
  return rec;
}

void DeviceOpReplay::replay(std::size_t op, const OpRecord& rec, TimeFs start_fs) {
  OpExecution& e = executions_[op];
  const TimeFs end_fs = start_fs + rec.duration_fs;
  e.executed_work = rec.executed_work;
  e.executed_flops = rec.executed_flops;
  e.tiles_done = rec.tiles_done;
  e.bytes = rec.bytes;
  e.latency_fs = rec.latency_fs;
  e.queueing_fs = rec.queueing_fs;
  e.busy_at_state_fs = rec.busy_at_state_fs;
  e.units = rec.units;
  for (auto& u : e.units) {
    if (u.first_fs == kNever) continue;
    u.first_fs = shifted(u.first_fs, start_fs, true);
    u.last_fs = shifted(u.last_fs, start_fs, true);
    u.since_fs = shifted(u.since_fs, start_fs, true);
  }
  e.replay_start_fs = start_fs;
  e.replay_end_fs = end_fs;
  memory_.add_replayed(rec.levels, rec.dram_read_bytes, rec.dram_written_bytes);
  if (dram_ != nullptr && rec.detailed_dram)
    dram_->add_replayed(static_cast<std::uint32_t>(op), rec.dram, rec.dram_asked_burst_bytes, end_fs);
  auto& spans = dispatcher_.tile_spans();
  for (TileSpan span : rec.spans) {
    span.op = static_cast<std::uint32_t>(op);
    span.start_fs += start_fs;
    span.end_fs += start_fs;
    spans.add(span);
  }
  // The cache contents the twin left of its own tensors, at this op's tensors, oldest use first so that LRU order
  // follows.
  const auto tensors = tensors_of(op);
  for (const auto& r : rec.resident) {
    if (r.tensor >= tensors.size()) continue;
    const Tensor& tensor = *tensors[r.tensor];
    const std::int64_t base = static_cast<std::int64_t>(tensor.address) + r.offset;
    CacheTags& tags = memory_.tags(r.level, r.array);
    const Bytes sector = tags.sector_bytes();
    std::uint64_t valid = r.valid;
    while (valid != 0) {
      const auto first = static_cast<unsigned>(__builtin_ctzll(valid));
      unsigned last = first;
      while (last + 1 < 64 && ((valid >> (last + 1)) & 1ULL) != 0) ++last;
      valid &= ~(((last == 63) ? ~0ULL : ((1ULL << (last + 1)) - 1)) & ~((1ULL << first) - 1));
      const std::int64_t lo_signed = base + static_cast<std::int64_t>(first * sector);
      const std::int64_t hi_signed = base + static_cast<std::int64_t>((last + 1) * sector);
      const Bytes lo = std::max<Bytes>(static_cast<Bytes>(std::max<std::int64_t>(lo_signed, 0)), tensor.address);
      const Bytes hi =
          std::min<Bytes>(static_cast<Bytes>(std::max<std::int64_t>(hi_signed, 0)), tensor.address + tensor.bytes);
      if (hi <= lo) continue;
      tags.write(lo, hi - lo);
      tags.mark_ready(lo, hi - lo, end_fs);
    }
  }
}

}  // namespace roofsim
