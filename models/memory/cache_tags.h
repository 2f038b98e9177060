#pragma once
// Tags of a cache kept at a coarse tracking granularity (DESIGN.md section 1.5): one tag per `tracking_bytes` block,
// LRU within a set, and a validity mask of sectors inside the block. A chunk then touches a handful of tags, while
// what hits and what is fetched stays exact to the sector (a line, or tracking / 64 when that is coarser), as in
// sectored GPU caches. Writes allocate without fetching (the written sectors become valid).
#include <cstdint>
#include <vector>

#include "models/kernel/fast_index.h"
#include "models/kernel/tile.h"
#include "models/kernel/time_fs.h"

namespace roofsim {

struct CacheTagsParams {
  Bytes capacity_bytes = 0;
  Bytes line_bytes = 128;
  Bytes tracking_bytes = 4096;
  std::uint64_t associativity = 16;  // ways per set, in blocks
};

struct CacheLookup {
  Bytes hit_bytes = 0;
  Bytes miss_bytes = 0;               // bytes of the range in missing sectors
  std::vector<AddressRange> fetches;  // sector-aligned ranges to ask the level below for
  Bytes fetch_bytes = 0;              // their sum
  TimeFs hit_ready_fs = 0;            // the latest fill completion among the blocks that hit

  // Empties the lookup for the next read, keeping the storage of `fetches`.
  void clear() {
    hit_bytes = miss_bytes = fetch_bytes = 0;
    fetches.clear();
    hit_ready_fs = 0;
  }
};

class CacheTags {
 public:
  explicit CacheTags(const CacheTagsParams& params);

  // Looks up a read of [address, address + bytes): counts hits, appends the missing sectors to `result.fetches`
  // (merging adjacent ones) and allocates them, evicting the least recently used block of a full set.
  void read(Bytes address, Bytes bytes, CacheLookup& result);
  // The reads of a chunk's ranges in order (one call for a strided tile's many rows).
  void read_all(const AddressRange* ranges, std::size_t count, CacheLookup& result);
  // Starts loading the host cache lines a look-up of `address` reads (its set's fingerprints and last uses), so
  // that they arrive while the caller does other work.
  void prefetch(Bytes address) const {
    const std::uint64_t base = hash_bucket(per_block_.div(address), sets_) * ways_;
    __builtin_prefetch(&tag_lines_[base / 16]);
    __builtin_prefetch(&uses_[base / 8]);
    if (ways_ > 8) __builtin_prefetch(&uses_[base / 8 + 1]);
  }
  // A write allocates and validates the written sectors; returns the bytes written.
  void write(Bytes address, Bytes bytes);
  // A write whose blocks are ready no earlier than `ready_fs` (write, then mark_ready, in one lookup per block).
  void write(Bytes address, Bytes bytes, TimeFs ready_fs);
  // Fill data for [address, address + bytes) arrives at `ready_fs`; later hits on those blocks wait for it.
  void mark_ready(Bytes address, Bytes bytes, TimeFs ready_fs);

  [[nodiscard]] Bytes sector_bytes() const { return sector_bytes_; }
  [[nodiscard]] Bytes tracking_bytes() const { return tracking_bytes_; }
  // Visits every held block with valid sectors: visit(block start address, valid sector mask, last use). Memoized
  // replay reads what an op left resident through it (sim/engine/op_replay.h); it is not on a chunk's path.
  template <class Visit>
  void for_each_block(Visit&& visit) const {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const Entry& e = entries_[i];
      if (e.block == kEmpty || e.valid == 0) continue;
      visit(e.block * tracking_bytes_, e.valid, uses_[i / 8].last_use[i % 8]);
    }
  }
  // The valid sectors of the block that starts at `block_address` (0: not held), without touching it.
  [[nodiscard]] std::uint64_t valid_sectors(Bytes block_address) const {
    const std::uint64_t index = find(per_block_.div(block_address));
    return index == kEmpty ? 0 : entries_[index].valid;
  }
  [[nodiscard]] std::uint64_t sets() const { return sets_; }
  [[nodiscard]] std::uint64_t ways() const { return ways_; }
  [[nodiscard]] std::uint64_t evictions() const { return evictions_; }
  // True when every byte of the range is in valid sectors (for tests).
  [[nodiscard]] bool contains(Bytes address, Bytes bytes) const;

 private:
  static constexpr std::uint64_t kEmpty = ~0ULL;
  // One way of a set; the block is kept beside its state so that a hit touches one entry.
  struct Entry {
    std::uint64_t block = kEmpty;  // the block held
    std::uint64_t valid = 0;       // one bit per sector
    TimeFs ready_fs = 0;
  };
  // The ways' last uses, apart from the entries and a set's to a 128-byte pair of host cache lines (16 ways), so
  // that choosing a victim reads two lines rather than every entry of the set.
  struct alignas(64) UseLine {
    std::uint64_t last_use[8] = {};
  };
  // The low 32 bits of the ways' blocks (all ones when empty), a set of 16 ways to one host cache line: a look-up
  // scans them and reads only the entry whose fingerprint matches.
  struct alignas(64) TagLine {
    std::uint32_t fingerprint[16];
  };

  [[nodiscard]] std::uint64_t set_of(std::uint64_t block) const;
  // Index of the block's way (set x ways + way), or kEmpty: the set's fingerprints are scanned and a match is
  // confirmed on its entry. (A hash index of the held blocks cost two dependent host cache misses per look-up and
  // more per eviction; a set's fingerprints are one line, and a miss reads its last uses at the same time.)
  [[nodiscard]] std::uint64_t find(std::uint64_t block) const;
  [[nodiscard]] std::uint32_t& fingerprint(std::uint64_t way_index) {
    return tag_lines_[way_index / 16].fingerprint[way_index % 16];
  }
  [[nodiscard]] std::uint32_t fingerprint(std::uint64_t way_index) const {
    return tag_lines_[way_index / 16].fingerprint[way_index % 16];
  }
  [[nodiscard]] std::uint64_t& last_use(std::uint64_t way_index) {
    return uses_[way_index / 8].last_use[way_index % 8];
  }
  std::uint64_t allocate(std::uint64_t block);
  static void add_fetch(CacheLookup& result, Bytes address, Bytes bytes);
  // The part [max(address, block start), min(end, block end)) of a read, in one block.
  void read_block(std::uint64_t block, Bytes address, Bytes end, CacheLookup& result);
  // Sectors of `block` that [address, address + bytes) touches.
  [[nodiscard]] std::uint64_t sector_mask(std::uint64_t block, Bytes address, Bytes bytes) const;

  Bytes tracking_bytes_;
  Bytes sector_bytes_;
  Divider per_block_;   // by tracking_bytes_
  Divider per_sector_;  // by sector_bytes_
  std::uint64_t sectors_per_block_;
  std::uint64_t sets_;
  std::uint64_t ways_;
  std::uint64_t clock_ = 0;
  std::uint64_t evictions_ = 0;
  std::vector<Entry> entries_;      // sets x ways
  std::vector<UseLine> uses_;       // sets x ways last uses, 8 to a line
  std::vector<TagLine> tag_lines_;  // sets x ways fingerprints, 16 to a line
};

}  // namespace roofsim
