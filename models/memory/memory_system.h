#pragma once
// The path of a unit's chunk through the memory levels a device declares (DESIGN.md section 4): per-unit levels
// (a scratchpad stages tiles, a cache keeps tags), device levels (a banked, shared cache with real tags, or a
// scratchpad that holds the data), then DRAM. Plain C++: every level is a set of busy-until ports (one per unit for
// unit scope, one per bank for device scope), so the path of a chunk is computed inside one event.
//
// Timing of a chunk: each level it passes is reserved at the chunk's issue time (FIFO per port, cut-through), and
// the chunk completes at the latest of (port finish + latency) over the levels that serve it and the DRAM's
// completion; the DRAM latency is the unloaded latency a unit sees (the file's `dram.latency`). Writes go through
// every level to DRAM (write-through, write-allocate) and complete when DRAM has taken them.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/kernel/chunk_memory.h"
#include "models/kernel/dram_interface.h"
#include "models/kernel/fast_index.h"
#include "models/kernel/port_array.h"
#include "models/memory/cache_tags.h"
#include "models/memory/memory_params.h"

namespace roofsim {

struct LevelCounters {
  Bytes read_bytes = 0;         // delivered to the requester above
  Bytes write_bytes = 0;        // accepted from above
  Bytes hit_bytes = 0;          // reads served from valid sectors (caches)
  Bytes miss_bytes = 0;         // reads not in valid sectors (caches); all reads of a scratchpad with a level below
  Bytes below_read_bytes = 0;   // requested of the level below (sector-rounded misses)
  Bytes below_write_bytes = 0;  // written through to the level below
  TimeFs port_busy_fs = 0;      // summed over ports, at the end of the run

  // Every counter in one order, for a record that stores them as a flat sequence and reads them back.
  template <class Counters, class Visit>
  static void for_each_counter(Counters& c, Visit&& visit) {
    for (auto* v : {&c.read_bytes, &c.write_bytes, &c.hit_bytes, &c.miss_bytes, &c.below_read_bytes,
                    &c.below_write_bytes, &c.port_busy_fs})
      visit(*v);
  }

  // Field by field: an op's share of the counters is the difference of two snapshots, and a replay adds it back.
  LevelCounters& operator+=(const LevelCounters& other) {
    read_bytes += other.read_bytes;
    write_bytes += other.write_bytes;
    hit_bytes += other.hit_bytes;
    miss_bytes += other.miss_bytes;
    below_read_bytes += other.below_read_bytes;
    below_write_bytes += other.below_write_bytes;
    port_busy_fs += other.port_busy_fs;
    return *this;
  }
  [[nodiscard]] LevelCounters operator-(const LevelCounters& other) const {
    return {read_bytes - other.read_bytes,
            write_bytes - other.write_bytes,
            hit_bytes - other.hit_bytes,
            miss_bytes - other.miss_bytes,
            below_read_bytes - other.below_read_bytes,
            below_write_bytes - other.below_write_bytes,
            port_busy_fs - other.port_busy_fs};
  }
};

class MemorySystem final : public ChunkMemory, private DramCompletionSink {
 public:
  // `dram` may be null (SRAM-only designs); it must outlive the memory system.
  MemorySystem(const MemorySystemParams& params, DramInterface* dram);

  // Level names from the units outward, with "dram" last when there is one; per-op byte counters use this order.
  [[nodiscard]] const std::vector<std::string>& level_names() const { return names_; }
  // Chunks are read and written through ChunkMemory::read and write (models/kernel/chunk_memory.h); op_bytes has
  // level_names().size() entries.

  // Counters of the SRAM levels (in level_names() order, without DRAM).
  [[nodiscard]] std::vector<LevelCounters> counters() const;
  [[nodiscard]] const DramInterface* dram() const { return dram_; }
  // Throws std::logic_error when bytes are not conserved between levels: reads delivered = hits + misses, and what
  // a level asked of the one below is what that level delivered.
  void check_conservation() const;
  // DRAM bytes, the model's own and those of memoized replays.
  [[nodiscard]] Bytes dram_bytes_read() const;
  [[nodiscard]] Bytes dram_bytes_written() const;

  // Memoized replay (sim/engine/op_replay.h) reads and restores cache contents and books a replayed op's traffic
  // without simulating it: the cache tag arrays of level `level` (one per unit for unit scope, one for the device;
  // none for a scratchpad), and the counters a replayed op adds (port busy time included) with its DRAM bytes.
  [[nodiscard]] std::size_t sram_levels() const { return levels_.size(); }
  [[nodiscard]] std::size_t tag_arrays(std::size_t level) const { return levels_[level].tags.size(); }
  [[nodiscard]] const CacheTags& tags(std::size_t level, std::size_t index) const { return levels_[level].tags[index]; }
  [[nodiscard]] CacheTags& tags(std::size_t level, std::size_t index) { return levels_[level].tags[index]; }
  [[nodiscard]] bool unit_scope(std::size_t level) const { return levels_[level].unit_scope; }
  void add_replayed(const std::vector<LevelCounters>& levels, Bytes dram_read, Bytes dram_written);
  // Steady-state fast-forward inside tiles (sim/engine/wave_fast_forward.h): a skipped step's chunk changes the
  // caches' contents as its access would (a read allocates what misses, ready at `ready_fs`; a write allocates what it
  // writes) without counting traffic or taking time on ports or DRAM.
  // `miss_bytes` (one per SRAM level), when given, adds what each level's look-ups missed.
  void touch(std::uint64_t unit, const ChunkView& chunk, bool write, TimeFs ready_fs, Bytes* miss_bytes = nullptr);
  // The caches' contents, to put back when touches were a trial (a fast-forward whose skipped waves would not miss
  // what the waves before them missed).
  [[nodiscard]] std::vector<std::vector<CacheTags>> cache_contents() const;
  void restore_cache_contents(std::vector<std::vector<CacheTags>> contents);
  // The capacity of level `level`'s tags, summed over its arrays (0: a scratchpad).
  [[nodiscard]] Bytes cache_capacity_bytes(std::size_t level) const {
    return levels_[level].cache ? levels_[level].params.capacity_bytes * levels_[level].tags.size() : 0;
  }
  // The bytes asked of DRAM by chunks still waiting for it (the DRAM's backlog: steady-state fast-forward's state,
  // sim/engine/wave_fast_forward.h). A chunk's bytes count until its last part is served.
  [[nodiscard]] Bytes bytes_at_dram() const { return bytes_at_dram_; }

 private:
  struct Level {
    MemoryLevelParams params;
    bool unit_scope = false;
    bool cache = false;
    std::vector<CacheTags> tags;  // per unit (unit scope) or one (device scope); empty for scratchpads
    PortArray ports;              // per unit (unit scope) or per bank (device scope)
    std::uint64_t banks = 1;      // of a device level; 1 for a unit-scope level (a unit's port serves it alone)
    BytesPerSecond port_bandwidth = 0;
    TransferRate port_rate;
    TimeFs latency_fs = 0;
    Divider line;        // by the line size: banks interleave lines
    Divider bank_run;    // by the bank count: a run of lines that covers every bank once
    TimeFs line_fs = 0;  // a port's time for one line
    LevelCounters counters;
    TimeFs replayed_port_busy_fs = 0;
  };

  // A chunk's DRAM parts in flight, in one host cache line: the first fill range is kept inline (a missing chunk is
  // usually one contiguous fetch), further ones in `more_fills_` under the same index.
  struct alignas(64) Pending {
    ChunkCompletionSink* sink = nullptr;
    std::uint64_t tag = 0;
    TimeFs done_fs = 0;
    TimeFs unloaded_fs = 0;
    std::uint32_t parts = 0;
    std::uint32_t fills = 0;  // sectors to mark ready in the outermost cache when the data is back: ranges
    AddressRange fill;        // the first of them
    Bytes dram_bytes = 0;     // asked of DRAM (bytes_at_dram)
  };
  static_assert(sizeof(Pending) == 64, "a pending record fills one host cache line");

  void dram_done(std::uint64_t tag, TimeFs done_fs) override;
  void access(std::uint64_t unit, const ChunkView& chunk, bool write, TimeFs now, Bytes* op_bytes,
              ChunkCompletionSink& sink, std::uint64_t tag, std::uint32_t op) override;
  // Reserves the level's ports for `ranges`; returns {finish + latency, unloaded}.
  std::pair<TimeFs, TimeFs> occupy(Level& level, std::uint64_t unit, const AddressRange* ranges, std::size_t count,
                                   Bytes bytes, TimeFs now);
  void release(std::uint32_t index);

  std::vector<Level> levels_;
  DramInterface* dram_;
  std::vector<std::string> names_;
  int outer_cache_ = -1;  // the cache level whose misses go to DRAM
  std::vector<Pending> pending_;
  std::vector<std::vector<AddressRange>> more_fills_;  // per pending record: its fill ranges after the first
  std::vector<std::uint32_t> free_pending_;
  std::array<CacheLookup, 2> lookups_;
  Bytes replayed_dram_read_ = 0,
        replayed_dram_written_ = 0;  // reused from chunk to chunk, so a lookup does not allocate
  Bytes bytes_at_dram_ = 0;
};

}  // namespace roofsim
