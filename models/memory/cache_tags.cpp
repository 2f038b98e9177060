#include "models/memory/cache_tags.h"

#include <algorithm>
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
  blocks_.assign(sets_ * ways_, kEmpty);
  entries_.resize(sets_ * ways_);
}

std::uint64_t CacheTags::set_of(std::uint64_t block) const {
  // Hashed set index (GPU L2s hash addresses over their slices) so that power-of-two strides do not alias.
  return hash_bucket(block, sets_);
}

std::uint64_t CacheTags::find(std::uint64_t block) const {
  const std::uint64_t base = set_of(block) * ways_;
  const std::uint64_t* tags = blocks_.data() + base;
  for (std::uint64_t way = 0; way < ways_; ++way) {
    if (tags[way] == block) return base + way;
  }
  return kEmpty;
}

std::uint64_t CacheTags::allocate(std::uint64_t block) {
  const std::uint64_t base = set_of(block) * ways_;
  std::uint64_t victim = base;
  for (std::uint64_t way = 0; way < ways_; ++way) {
    if (blocks_[base + way] == kEmpty) {
      victim = base + way;
      break;
    }
    if (entries_[base + way].last_use < entries_[victim].last_use) victim = base + way;
  }
  if (blocks_[victim] != kEmpty) ++evictions_;
  blocks_[victim] = block;
  entries_[victim] = Entry{0, clock_, 0};
  return victim;
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

void CacheTags::read(Bytes address, Bytes bytes, CacheLookup& result) {
  if (bytes == 0) return;
  const std::uint64_t first_block = per_block_.div(address);
  const std::uint64_t last_block = per_block_.div(address + bytes - 1);
  for (std::uint64_t block = first_block; block <= last_block; ++block) {
    ++clock_;
    const std::uint64_t mask = sector_mask(block, address, bytes);
    std::uint64_t index = find(block);
    std::uint64_t valid = 0;
    if (index != kEmpty) {
      valid = entries_[index].valid & mask;
      if (valid != 0) result.hit_ready_fs = std::max(result.hit_ready_fs, entries_[index].ready_fs);
    } else {
      index = allocate(block);
    }
    Entry* entry = &entries_[index];
    entry->last_use = clock_;
    // Bytes of the range in each sector: exact at the range's ends, whole sectors in between.
    const Bytes block_start = block * tracking_bytes_;
    for (std::uint64_t bits = mask; bits != 0; bits &= bits - 1) {
      const auto sector = static_cast<std::uint64_t>(__builtin_ctzll(bits));
      const Bytes s_lo = block_start + sector * sector_bytes_;
      const Bytes s_hi = s_lo + sector_bytes_;
      const Bytes part = std::min(s_hi, address + bytes) - std::max(s_lo, address);
      if ((valid >> sector) & 1ULL) {
        result.hit_bytes += part;
      } else {
        result.miss_bytes += part;
        if (!result.fetches.empty() && result.fetches.back().address + result.fetches.back().bytes == s_lo) {
          result.fetches.back().bytes += sector_bytes_;
        } else {
          result.fetches.push_back({s_lo, sector_bytes_});
        }
      }
    }
    entry->valid |= mask;
  }
}

void CacheTags::write(Bytes address, Bytes bytes) {
  if (bytes == 0) return;
  const std::uint64_t first_block = per_block_.div(address);
  const std::uint64_t last_block = per_block_.div(address + bytes - 1);
  for (std::uint64_t block = first_block; block <= last_block; ++block) {
    ++clock_;
    std::uint64_t index = find(block);
    if (index == kEmpty) index = allocate(block);
    entries_[index].last_use = clock_;
    entries_[index].valid |= sector_mask(block, address, bytes);
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
