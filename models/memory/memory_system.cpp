#include "models/memory/memory_system.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace roofsim {

namespace {

// First bank of a run of `banks` consecutive lines of a device level. Within a run, consecutive lines go to
// consecutive banks, so a stream spreads over all banks exactly evenly; each run starts at a hashed bank, as GPU L2
// slices hash the upper address bits, so that power-of-two strides do not pile onto one bank.
std::uint64_t run_start_bank(std::uint64_t run, std::uint64_t banks) {
  return hash_bucket(run ^ 0x5bd1e995ULL, banks);
}
}  // namespace

MemorySystem::MemorySystem(const MemorySystemParams& system, DramInterface* dram) : dram_(dram) {
  const std::uint64_t units = std::max<std::uint64_t>(system.units, 1);
  for (const auto& params : system.levels) {
    Level level;
    level.params = params;
    level.unit_scope = params.scope == LevelScope::unit;
    level.cache = params.kind == LevelKind::cache;
    const std::uint64_t ports = level.unit_scope ? units : std::max<std::uint64_t>(params.banks, 1);
    level.banks = level.unit_scope ? 1 : ports;
    level.ports = PortArray(ports);
    // Unit scope: bytes_per_cycle is per unit; device scope: for the whole level, shared equally by its banks.
    level.port_bandwidth =
        params.bytes_per_cycle * params.clock_hz / (level.unit_scope ? 1.0 : static_cast<double>(ports));
    level.port_rate = TransferRate(level.port_bandwidth);
    level.latency_fs = seconds_to_fs(params.latency_s);
    level.line = Divider(params.line_bytes);
    level.bank_run = Divider(ports);
    level.line_fs = level.port_rate.time_fs(params.line_bytes);
    if (level.cache) {
      const CacheTagsParams tags{params.capacity_bytes, params.line_bytes, params.tracking_bytes, params.associativity};
      level.tags.assign(level.unit_scope ? units : 1, CacheTags(tags));
    }
    names_.push_back(params.name);
    levels_.push_back(std::move(level));
  }
  for (std::size_t i = 0; i < levels_.size(); ++i) {
    if (levels_[i].cache) outer_cache_ = static_cast<int>(i);
  }
  if (dram_ != nullptr) names_.emplace_back("dram");
}

std::pair<TimeFs, TimeFs> MemorySystem::occupy(Level& level, std::uint64_t unit, const AddressRange* ranges,
                                               std::size_t count, Bytes bytes, TimeFs now) {
  if (level.banks == 1) {
    // A unit's own port, or the one port of an unbanked device level: the chunk's bytes in one transfer.
    const TimeFs transfer = level.port_rate.time_fs(bytes);
    return {level.ports.reserve(level.unit_scope ? unit : 0, now, transfer) + level.latency_fs,
            transfer + level.latency_fs};
  }
  // A range's whole lines lie on consecutive banks (a run of `banks` lines covers every bank once), so they are
  // reserved segment by segment over the banks' free times (PortArray::reserve_run, a loop the compiler vectorizes);
  // partial first and last lines take their own time. Reservations of one chunk on one bank all arrive at `now` and
  // end where one reservation of their sum would. The unloaded time is a bank's share of one range (its passes over the
  // banks); two ranges of a strided chunk that meet on a bank queue behind each other.
  const std::uint64_t banks = level.banks;
  const Bytes line = level.line.value();
  TimeFs done = now, unloaded = 0;
  // Reserves `n` banks from `bank` for `transfer` each (n = 1 for a partial line).
  const auto reserve = [&](std::uint64_t bank, std::uint64_t n, TimeFs transfer) {
    done = std::max(done, level.ports.reserve_run(bank, n, now, transfer));
  };
  for (std::size_t i = 0; i < count; ++i) {
    Bytes at = ranges[i].address;
    const Bytes end = at + ranges[i].bytes;
    // A cursor over the range's lines: its run of banks, its place in the run and its bank (one division per range).
    const std::uint64_t first_line = level.line.div(at);
    std::uint64_t run = level.bank_run.div(first_line);
    std::uint64_t position = first_line - run * banks;
    std::uint64_t bank = run_start_bank(run, banks) + position;
    if (bank >= banks) bank -= banks;
    const auto advance = [&](std::uint64_t lines) {  // lines <= what is left of the run and of the bank array
      position += lines;
      bank += lines;
      if (position == banks) {
        position = 0;
        bank = run_start_bank(++run, banks);
      } else if (bank == banks) {
        bank = 0;
      }
    };
    const Bytes head = level.line.mod(at);
    TimeFs range_share = 0;
    if (head != 0 || end - at < line) {
      const Bytes part = std::min(end - at, line - head);
      const TimeFs transfer = level.port_rate.time_fs(part);
      reserve(bank, 1, transfer);
      range_share = transfer;
      at += part;
      advance(1);
    }
    std::uint64_t whole = level.line.div(end - at);
    const std::uint64_t passes = whole <= banks ? (whole > 0 ? 1 : 0) : (whole + banks - 1) / banks;
    range_share = std::max(range_share, static_cast<TimeFs>(passes) * level.line_fs);
    while (whole > 0) {
      // One segment: from this line to the end of its run of banks, of the bank array, or of the range.
      const std::uint64_t n = std::min({whole, banks - position, banks - bank});
      reserve(bank, n, level.line_fs);
      advance(n);
      whole -= n;
      at += n * line;
    }
    if (at < end) {
      const TimeFs transfer = level.port_rate.time_fs(end - at);
      reserve(bank, 1, transfer);
      if (passes == 0) range_share = std::max(range_share, transfer);
    }
    unloaded = std::max(unloaded, range_share);
  }
  return {done + level.latency_fs, unloaded + level.latency_fs};
}

std::vector<std::vector<CacheTags>> MemorySystem::cache_contents() const {
  std::vector<std::vector<CacheTags>> contents;
  for (const auto& level : levels_) contents.push_back(level.tags);
  return contents;
}

void MemorySystem::restore_cache_contents(std::vector<std::vector<CacheTags>> contents) {
  for (std::size_t l = 0; l < levels_.size() && l < contents.size(); ++l) levels_[l].tags = std::move(contents[l]);
}

void MemorySystem::touch(std::uint64_t unit, const ChunkView& chunk, bool write, TimeFs ready_fs, Bytes* miss_bytes) {
  const AddressRange* ranges = chunk.ranges;
  std::size_t count = chunk.count;
  std::size_t lookup_buffer = 0;
  for (std::size_t l = 0; l < levels_.size() && count != 0; ++l) {
    Level& level = levels_[l];
    if (!level.cache) continue;
    CacheTags& tags = level.tags[level.unit_scope ? unit : 0];
    if (write) {
      for (std::size_t i = 0; i < count; ++i) tags.write(ranges[i].address, ranges[i].bytes);
      continue;
    }
    CacheLookup& lookup = lookups_[lookup_buffer];
    lookup_buffer ^= 1;
    lookup.clear();
    tags.read_all(ranges, count, lookup);
    if (miss_bytes != nullptr) miss_bytes[l] += lookup.miss_bytes;
    for (const auto& fetch : lookup.fetches) tags.mark_ready(fetch.address, fetch.bytes, ready_fs);
    ranges = lookup.fetches.data();
    count = lookup.fetches.size();
  }
}

void MemorySystem::access(std::uint64_t unit, const ChunkView& chunk, bool write, TimeFs now, Bytes* op_bytes,
                          ChunkCompletionSink& sink, std::uint64_t tag, std::uint32_t op) {
  // The ranges a level serves: the chunk's own at the first level, then what each cache asks of the level below
  // (its lookup's fetches; two lookups alternate so that a level's input is never the buffer it fills).
  const AddressRange* ranges = chunk.ranges;
  std::size_t count = chunk.count;
  Bytes bytes = chunk.bytes;
  std::size_t lookup_buffer = 0;
  TimeFs done = now, unloaded = 0, hit_ready = 0;
  // The tag lines of the caches' first look-up load while the ports are reserved (the tags are cold: megabytes of
  // simulator state are touched between two accesses).
  if (count != 0) {
    for (auto& level : levels_) {
      if (level.cache) level.tags[level.unit_scope ? unit : 0].prefetch(ranges[0].address);
    }
  }
  for (std::size_t l = 0; l < levels_.size() && count != 0; ++l) {
    Level& level = levels_[l];
    op_bytes[l] += bytes;
    (write ? level.counters.write_bytes : level.counters.read_bytes) += bytes;
    const auto [level_done, level_unloaded] = occupy(level, unit, ranges, count, bytes, now);
    done = std::max(done, level_done);
    unloaded = std::max(unloaded, level_unloaded);
    // A resident tensor's data lives in the outermost SRAM level; everything else may go on to DRAM.
    const bool has_below = l + 1 < levels_.size() || (dram_ != nullptr && !chunk.resident);
    const AddressRange* next = ranges;
    std::size_t next_count = count;
    Bytes next_bytes = bytes;
    if (level.cache) {
      CacheTags& tags = level.tags[level.unit_scope ? unit : 0];
      if (write) {
        for (std::size_t i = 0; i < count; ++i) tags.write(ranges[i].address, ranges[i].bytes);
      } else {
        CacheLookup& lookup = lookups_[lookup_buffer];
        lookup_buffer ^= 1;
        lookup.clear();
        tags.read_all(ranges, count, lookup);
        level.counters.hit_bytes += lookup.hit_bytes;
        level.counters.miss_bytes += lookup.miss_bytes;
        hit_ready = std::max(hit_ready, lookup.hit_ready_fs);
        next = lookup.fetches.data();
        next_count = lookup.fetches.size();
        next_bytes = lookup.fetch_bytes;
      }
    } else if (!write) {
      level.counters.miss_bytes += bytes;
    }
    if (!has_below) {
      // The outermost level with nothing below holds the data itself (SRAM-only designs).
      if (!write) {
        level.counters.hit_bytes += next_bytes;
        level.counters.miss_bytes -= std::min(level.counters.miss_bytes, next_bytes);
      }
      next_count = 0;
      next_bytes = 0;
    }
    (write ? level.counters.below_write_bytes : level.counters.below_read_bytes) += next_bytes;
    ranges = next;
    count = next_count;
    bytes = next_bytes;
  }
  done = std::max(done, hit_ready);
  if (count == 0 || dram_ == nullptr) {
    sink.chunk_done(tag, done, unloaded);
    return;
  }
  // DRAM parts: one pending record collects their completions (the detailed model may report them later).
  std::uint32_t index;
  if (!free_pending_.empty()) {
    index = free_pending_.back();
    free_pending_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(pending_.size());
    pending_.emplace_back();
    more_fills_.emplace_back();
  }
  {
    Pending& record = pending_[index];
    record.sink = &sink;
    record.tag = tag;
    record.done_fs = done;
    record.unloaded_fs = unloaded;
    record.parts = 1;  // held until every part is submitted, so a synchronous completion cannot finish it early
    record.fills = 0;
    record.dram_bytes = bytes;
    for (std::size_t i = 0; i < count; ++i) {
      record.unloaded_fs = std::max(record.unloaded_fs, dram_->unloaded_fs(ranges[i].address, ranges[i].bytes));
    }
    if (!write && outer_cache_ >= 0) {
      record.fills = static_cast<std::uint32_t>(count);
      record.fill = ranges[0];
      if (count > 1) more_fills_[index].assign(ranges + 1, ranges + count);
    }
    record.parts += static_cast<std::uint32_t>(count);
  }
  op_bytes[levels_.size()] += bytes;
  bytes_at_dram_ += bytes;
  for (std::size_t i = 0; i < count; ++i) {
    dram_->submit(DramRequest{ranges[i].address, ranges[i].bytes, write, now, index, op}, *this);
  }
  release(index);
}

void MemorySystem::dram_done(std::uint64_t tag, TimeFs done_fs) {
  Pending& record = pending_[tag];
  record.done_fs = std::max(record.done_fs, done_fs);
  release(static_cast<std::uint32_t>(tag));
}

void MemorySystem::release(std::uint32_t index) {
  Pending& record = pending_[index];
  if (--record.parts != 0) return;
  if (outer_cache_ >= 0) {
    Level& level = levels_[static_cast<std::size_t>(outer_cache_)];
    if (!level.unit_scope) {
      if (record.fills > 0) level.tags[0].mark_ready(record.fill.address, record.fill.bytes, record.done_fs);
      if (record.fills > 1) {
        for (const auto& r : more_fills_[index]) level.tags[0].mark_ready(r.address, r.bytes, record.done_fs);
      }
    }
  }
  free_pending_.push_back(index);
  bytes_at_dram_ -= record.dram_bytes;
  record.sink->chunk_done(record.tag, record.done_fs, record.unloaded_fs);
}

std::vector<LevelCounters> MemorySystem::counters() const {
  std::vector<LevelCounters> out;
  for (const auto& level : levels_) {
    LevelCounters c = level.counters;
    c.port_busy_fs = level.ports.busy_fs() + level.replayed_port_busy_fs;
    out.push_back(c);
  }
  return out;
}

void MemorySystem::check_conservation() const {
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    const auto& c = levels_[l].counters;
    const auto& name = levels_[l].params.name;
    if (c.read_bytes != c.hit_bytes + c.miss_bytes) {
      throw std::logic_error("level " + name + ": read " + std::to_string(c.read_bytes) + " B != hits " +
                             std::to_string(c.hit_bytes) + " B + misses " + std::to_string(c.miss_bytes) + " B");
    }
    Bytes below_read = 0, below_write = 0;
    if (l + 1 < levels_.size()) {
      below_read = levels_[l + 1].counters.read_bytes;
      below_write = levels_[l + 1].counters.write_bytes;
    } else if (dram_ != nullptr) {
      below_read = dram_bytes_read();
      below_write = dram_bytes_written();
    } else {
      continue;
    }
    if (c.below_read_bytes != below_read || c.below_write_bytes != below_write) {
      throw std::logic_error("level " + name + ": asked the level below for " + std::to_string(c.below_read_bytes) +
                             " B read / " + std::to_string(c.below_write_bytes) + " B written, which delivered " +
                             std::to_string(below_read) + " B / " + std::to_string(below_write) + " B");
    }
  }
}

Bytes MemorySystem::dram_bytes_read() const {
  return (dram_ != nullptr ? dram_->bytes_read() : 0) + replayed_dram_read_;
}

Bytes MemorySystem::dram_bytes_written() const {
  return (dram_ != nullptr ? dram_->bytes_written() : 0) + replayed_dram_written_;
}

void MemorySystem::add_replayed(const std::vector<LevelCounters>& levels, Bytes dram_read, Bytes dram_written) {
  for (std::size_t l = 0; l < levels.size() && l < levels_.size(); ++l) {
    // The ports' busy time is summed from the ports at the end of the run; a replay's share is kept beside it.
    LevelCounters traffic = levels[l];
    traffic.port_busy_fs = 0;
    levels_[l].counters += traffic;
    levels_[l].replayed_port_busy_fs += levels[l].port_busy_fs;
  }
  replayed_dram_read_ += dram_read;
  replayed_dram_written_ += dram_written;
}

}  // namespace roofsim
