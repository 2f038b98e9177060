#include "models/memory/cache_tags.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace roofsim {

CacheTags::CacheTags(const CacheTagsParams& params) : tracking_bytes_(params.tracking_bytes) {
  if (params.capacity_bytes == 0 || params.tracking_bytes == 0 || params.line_bytes == 0) {
    throw std::invalid_argument("cache tags need a capacity, a line size and a tracking granularity");
  }
  // At most 64 sectors per block, so that validity fits one word.
  sectors_per_block_ = std::clamp<std::uint64_t>(tracking_bytes_ / params.line_bytes, 1, 64);
  sector_bytes_ = tracking_bytes_ / sectors_per_block_;
  const std::uint64_t blocks = std::max<std::uint64_t>(1, params.capacity_bytes / tracking_bytes_);
  ways_ = std::clamp<std::uint64_t>(params.associativity, 1, blocks);
  sets_ = std::max<std::uint64_t>(1, blocks / ways_);
  per_block_ = Divider(tracking_bytes_);
  per_sector_ = Divider(sector_bytes_);
  entries_.resize(sets_ * ways_);
  uses_.resize((sets_ * ways_ + 7) / 8);
  tag_lines_.resize((sets_ * ways_ + 15) / 16);
  for (auto& line : tag_lines_) std::fill(std::begin(line.fingerprint), std::end(line.fingerprint), ~0U);
}

std::uint64_t CacheTags::set_of(std::uint64_t block) const {
  // Hashed set index (GPU L2s hash addresses over their slices) so that power-of-two strides do not alias.
  return hash_bucket(block, sets_);
}

std::uint64_t CacheTags::find(std::uint64_t block) const {
  const std::uint64_t base = set_of(block) * ways_;
  const auto key = static_cast<std::uint32_t>(block);
#if defined(__SSE2__)
  if (ways_ == 16) {
    // A set is one whole tag line: its 16 fingerprints are compared at once, and the matches (usually none or one)
    // are confirmed in way order, as the loop below would, without a mispredicted exit from a scan.
    const auto* line = reinterpret_cast<const __m128i*>(tag_lines_[base / 16].fingerprint);
    const __m128i wanted = _mm_set1_epi32(static_cast<int>(key));
    const __m128i low = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(line), wanted),
                                        _mm_cmpeq_epi32(_mm_load_si128(line + 1), wanted));
    const __m128i high = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(line + 2), wanted),
                                         _mm_cmpeq_epi32(_mm_load_si128(line + 3), wanted));
    for (auto matches = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(low, high))); matches != 0;
         matches &= matches - 1) {
      const std::uint64_t way = base + static_cast<std::uint64_t>(__builtin_ctz(matches));
      if (entries_[way].block == block) return way;
    }
    return kEmpty;
  }
#endif
  for (std::uint64_t way = base; way < base + ways_; ++way) {
    if (fingerprint(way) == key && entries_[way].block == block) return way;
  }
  return kEmpty;
}

std::uint64_t CacheTags::allocate(std::uint64_t block) {
  // The least recently used way, the first on ties: an empty way has last use 0 and every used one a later clock, so
  // the first empty way is taken while there is one.
  const std::uint64_t base = set_of(block) * ways_;
  std::uint64_t victim = base;
  std::uint64_t oldest = last_use(base);
  if (ways_ == 16 && oldest != 0) {
    // A set is two whole use lines. A replay's install fills full sets, where the scan's branch on each way's age is
    // a coin toss; a minimum over (last use, way) keys, in a tree of conditional moves, takes the same way (the
    // oldest, the first on ties) without one. A clock of 2^60 uses is decades of simulation.
    std::uint64_t keys[16];
    for (std::uint64_t way = 0; way < 16; ++way) {
      keys[way] = uses_[base / 8 + way / 8].last_use[way % 8] << 4 | way;
    }
    for (std::uint64_t width = 8; width > 0; width /= 2) {
      for (std::uint64_t way = 0; way < width; ++way) keys[way] = std::min(keys[way], keys[way + width]);
    }
    oldest = keys[0] >> 4;
    victim = base + (keys[0] & 15);
  } else {
    for (std::uint64_t way = 1; way < ways_ && oldest != 0; ++way) {
      const std::uint64_t used = last_use(base + way);
      if (used < oldest) {
        oldest = used;
        victim = base + way;
      }
    }
  }
  if (oldest != 0) ++evictions_;  // every way of the set is in use
  entries_[victim] = Entry{block, 0, 0};
  last_use(victim) = clock_;
  fingerprint(victim) = static_cast<std::uint32_t>(block);
  return victim;
}

void CacheTags::add_fetch(CacheLookup& result, Bytes address, Bytes bytes) {
  // Adjacent missing sectors (of one block or of consecutive blocks) merge into one fetch.
  if (!result.fetches.empty() && result.fetches.back().address + result.fetches.back().bytes == address) {
    result.fetches.back().bytes += bytes;
  } else {
    // In place: a temporary is stored field by field and reloaded whole, a reload that waits for the stores.
    AddressRange& fetch = result.fetches.emplace_back();
    fetch.address = address;
    fetch.bytes = bytes;
  }
  result.fetch_bytes += bytes;
}

std::uint64_t CacheTags::sector_mask(std::uint64_t block, Bytes address, Bytes bytes) const {
  const Bytes block_start = block * tracking_bytes_;
  const Bytes lo = std::max(address, block_start) - block_start;
  const Bytes hi = std::min(address + bytes, block_start + tracking_bytes_) - block_start;
  const std::uint64_t first = per_sector_.div(lo);
  const std::uint64_t last = per_sector_.div(hi - 1);
  const std::uint64_t count = last - first + 1;
  const std::uint64_t ones = count >= 64 ? ~0ULL : ((1ULL << count) - 1);
  return ones << first;
}

// Inlined into both callers: it is the body of the per-row loop of a chunk.
[[gnu::always_inline]] inline void CacheTags::read_block(std::uint64_t block, Bytes address, Bytes end,
                                                         CacheLookup& result) {
  ++clock_;
  const Bytes block_start = block * tracking_bytes_;
  const Bytes lo = std::max(address, block_start);
  const Bytes hi = std::min(end, block_start + tracking_bytes_);
  const std::uint64_t first = per_sector_.div(lo - block_start);
  const std::uint64_t count = per_sector_.div(hi - 1 - block_start) - first + 1;
  const std::uint64_t mask = (count >= 64 ? ~0ULL : ((1ULL << count) - 1)) << first;
  std::uint64_t index = find(block);
  std::uint64_t valid = 0;
  if (index != kEmpty) {
    valid = entries_[index].valid & mask;
    if (valid != 0) result.hit_ready_fs = std::max(result.hit_ready_fs, entries_[index].ready_fs);
  } else {
    index = allocate(block);
  }
  last_use(index) = clock_;
  entries_[index].valid |= mask;
  // The common cases in one step: every touched sector valid (a hit), or none (one contiguous fetch).
  if (valid == mask) {
    result.hit_bytes += hi - lo;
    return;
  }
  if (valid == 0) {
    result.miss_bytes += hi - lo;
    add_fetch(result, block_start + first * sector_bytes_, count * sector_bytes_);
    return;
  }
  // Bytes of the range in each sector: exact at the range's ends, whole sectors in between.
  for (std::uint64_t bits = mask; bits != 0; bits &= bits - 1) {
    const auto sector = static_cast<std::uint64_t>(__builtin_ctzll(bits));
    const Bytes s_lo = block_start + sector * sector_bytes_;
    const Bytes part = std::min(s_lo + sector_bytes_, end) - std::max(s_lo, address);
    if ((valid >> sector) & 1ULL) {
      result.hit_bytes += part;
    } else {
      result.miss_bytes += part;
      add_fetch(result, s_lo, sector_bytes_);
    }
  }
}

void CacheTags::read(Bytes address, Bytes bytes, CacheLookup& result) {
  if (bytes == 0) return;
  const Bytes end = address + bytes;
  const std::uint64_t last_block = per_block_.div(end - 1);
  for (std::uint64_t block = per_block_.div(address); block <= last_block; ++block) {
    read_block(block, address, end, result);
  }
}

void CacheTags::read_all(const AddressRange* ranges, std::size_t count, CacheLookup& result) {
  for (std::size_t i = 0; i < count; ++i) {
    const Bytes address = ranges[i].address;
    const Bytes end = address + ranges[i].bytes;
    const std::uint64_t block = per_block_.div(address);
    // A strided tile's row lies in one block: no loop over blocks.
    if (end > address && per_block_.div(end - 1) == block) {
      read_block(block, address, end, result);
    } else {
      read(address, ranges[i].bytes, result);
    }
  }
}

void CacheTags::write(Bytes address, Bytes bytes) {
  write(address, bytes, 0);
}

void CacheTags::write(Bytes address, Bytes bytes, TimeFs ready_fs) {
  if (bytes == 0) return;
  const std::uint64_t first_block = per_block_.div(address);
  const std::uint64_t last_block = per_block_.div(address + bytes - 1);
  for (std::uint64_t block = first_block; block <= last_block; ++block) {
    ++clock_;
    std::uint64_t index = find(block);
    if (index == kEmpty) index = allocate(block);
    last_use(index) = clock_;
    entries_[index].valid |= sector_mask(block, address, bytes);
    // A later block of the same write that evicts this one allocates its entry afresh (ready at 0), as a separate
    // mark_ready would have found this block gone.
    entries_[index].ready_fs = std::max(entries_[index].ready_fs, ready_fs);
  }
}

void CacheTags::mark_ready(Bytes address, Bytes bytes, TimeFs ready_fs) {
  if (bytes == 0) return;
  const std::uint64_t first_block = per_block_.div(address);
  const std::uint64_t last_block = per_block_.div(address + bytes - 1);
  for (std::uint64_t block = first_block; block <= last_block; ++block) {
    const std::uint64_t index = find(block);
    if (index != kEmpty) entries_[index].ready_fs = std::max(entries_[index].ready_fs, ready_fs);
  }
}

bool CacheTags::contains(Bytes address, Bytes bytes) const {
  if (bytes == 0) return true;
  const std::uint64_t first_block = per_block_.div(address);
  const std::uint64_t last_block = per_block_.div(address + bytes - 1);
  for (std::uint64_t block = first_block; block <= last_block; ++block) {
    const std::uint64_t index = find(block);
    const std::uint64_t mask = sector_mask(block, address, bytes);
    if (index == kEmpty || (entries_[index].valid & mask) != mask) return false;
  }
  return true;
}

}  // namespace roofsim
