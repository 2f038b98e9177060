// The tag look-up scans a set's block fingerprints and confirms a match on the entry, and the victim is chosen from
// last uses kept apart from the entries; these tests drive them through many evictions and check that what is held
// is exactly what LRU keeps.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "models/kernel/fast_index.h"
#include "models/memory/cache_tags.h"

using namespace roofsim;

TEST_CASE("after many evictions a fully associative cache holds exactly the 16 most recently used blocks") {
  CacheTags tags(CacheTagsParams{16 * 4096, 128, 4096, 16});
  REQUIRE(tags.sets() == 1);
  std::deque<Bytes> recent;  // most recent first, distinct
  std::uint64_t state = 12345;
  for (int access = 0; access < 5000; ++access) {
    // A linear congruential sequence (Knuth's MMIX constants) over 40 blocks, some far apart in address.
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const Bytes block = (state >> 33) % 40;
    const Bytes address = (block < 20 ? block : block * 977) * 4096;
    CacheLookup lookup;
    tags.read(address, 4096, lookup);
    const bool held = std::find(recent.begin(), recent.end(), address) != recent.end();
    CHECK(lookup.hit_bytes == (held ? 4096U : 0U));
    recent.erase(std::remove(recent.begin(), recent.end(), address), recent.end());
    recent.push_front(address);
    if (recent.size() > 16) recent.pop_back();
  }
  for (Bytes block = 0; block < 40; ++block) {
    const Bytes address = (block < 20 ? block : block * 977) * 4096;
    const bool held = std::find(recent.begin(), recent.end(), address) != recent.end();
    CHECK(tags.contains(address, 4096) == held);
  }
}

TEST_CASE("a chunk of strided rows reads like its rows one by one") {
  // 32 rows of 128 B, 16 KiB apart (a GEMM operand tile's rows), read as one chunk and as separate reads.
  const CacheTagsParams params{1 << 20, 128, 4096, 16};
  CacheTags whole(params), rows(params);
  std::vector<AddressRange> ranges;
  for (Bytes r = 0; r < 32; ++r) ranges.push_back({r * 16384 + 256, 128});
  ranges.push_back({1 << 22, 3 * 4096 + 64});  // and one range over several blocks
  for (int pass = 0; pass < 2; ++pass) {
    CacheLookup together;
    whole.read_all(ranges.data(), ranges.size(), together);
    Bytes hit = 0, miss = 0, fetched = 0;
    for (const auto& r : ranges) {
      CacheLookup one;
      rows.read(r.address, r.bytes, one);
      hit += one.hit_bytes;
      miss += one.miss_bytes;
      fetched += one.fetch_bytes;
    }
    CHECK(together.hit_bytes == hit);
    CHECK(together.miss_bytes == miss);
    CHECK(together.fetch_bytes == fetched);
    CHECK(together.hit_bytes + together.miss_bytes == 32 * 128 + 3 * 4096 + 64);
    // The first pass misses everything (fetching whole 128 B sectors), the second hits everything.
    CHECK(together.miss_bytes == (pass == 0 ? 32 * 128 + 3 * 4096 + 64 : 0));
  }
}

TEST_CASE("a divider by a size that is not a power of two divides") {
  // SRAM-LPU's 320 B lines and 40 KiB tracking blocks.
  const Divider line(320);
  CHECK(line.div(1000) == 3);
  CHECK(line.mod(1000) == 40);
  const Divider block(40960);
  CHECK(block.div(40960 * 7 + 5) == 7);
  const Divider power(4096);
  CHECK(power.div(3 * 4096 + 1) == 3);
  CHECK(power.mod(3 * 4096 + 1) == 1);
}

namespace {
// Drives `sets` x `ways` tags with a pseudo-random stream of reads and writes over `blocks` blocks and checks each hit,
// the evictions and what is held at the end against a reference that keeps each set's `ways` most recent blocks, the
// set given by the hash the tags use.
void check_against_per_set_lru(std::uint64_t sets, std::uint64_t ways, std::uint64_t blocks, std::uint64_t seed) {
  CacheTags tags(CacheTagsParams{sets * ways * 4096, 128, 4096, ways});
  REQUIRE(tags.sets() == sets);
  REQUIRE(tags.ways() == ways);
  std::vector<std::deque<Bytes>> reference(sets);  // most recent first
  std::uint64_t state = seed;
  std::uint64_t evictions = 0;
  for (int access = 0; access < 20000; ++access) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const Bytes block = (state >> 33) % blocks;
    auto& recent = reference[hash_bucket(block, sets)];
    const bool held = std::find(recent.begin(), recent.end(), block) != recent.end();
    CacheLookup lookup;
    if (access % 5 == 0) {
      tags.write(block * 4096, 4096);
    } else {
      tags.read(block * 4096, 4096, lookup);
      CHECK(lookup.hit_bytes == (held ? 4096U : 0U));
    }
    recent.erase(std::remove(recent.begin(), recent.end(), block), recent.end());
    recent.push_front(block);
    if (recent.size() > ways) {
      recent.pop_back();
      ++evictions;
    }
  }
  CHECK(tags.evictions() == evictions);
  for (Bytes block = 0; block < blocks; ++block) {
    const auto& recent = reference[hash_bucket(block, sets)];
    CHECK(tags.contains(block * 4096, 4096) == (std::find(recent.begin(), recent.end(), block) != recent.end()));
  }
}
}  // namespace

TEST_CASE("a set-associative cache hits exactly where per-set LRU holds the block") {
  // 8 sets of 4 ways, so that the last-use lines of the sets are shared (8 per line).
  check_against_per_set_lru(8, 4, 96, 777);
}

TEST_CASE("a 16-way cache of several sets evicts each set's least recently used block") {
  // 16 ways take the victim search that compares a set's two last-use lines at once; sets past the first check that
  // it reads its own set's lines.
  check_against_per_set_lru(4, 16, 96, 4242);
}

TEST_CASE("blocks that share a fingerprint (their low 32 bits) in one 16-way set are told apart") {
  CacheTags tags(CacheTagsParams{16 * 4096, 128, 4096, 16});
  REQUIRE(tags.sets() == 1);
  // Blocks 7, 7 + 2^32 and 7 + 2^33 share a fingerprint; the one held is found whichever way it sits in.
  const Bytes far = (Bytes{1} << 32) * 4096;
  tags.write(7 * 4096 + far, 128);       // one sector of block 7 + 2^32
  tags.write(7 * 4096 + 2 * far, 4096);  // all of block 7 + 2^33
  CacheLookup lookup;
  tags.read(7 * 4096, 4096, lookup);  // block 7 itself is not held
  CHECK(lookup.hit_bytes == 0);
  CHECK(lookup.miss_bytes == 4096);
  lookup.clear();
  tags.read(7 * 4096 + far, 256, lookup);  // its first sector was written, the second was not
  CHECK(lookup.hit_bytes == 128);
  CHECK(lookup.miss_bytes == 128);
  lookup.clear();
  tags.read(7 * 4096 + 2 * far, 4096, lookup);
  CHECK(lookup.hit_bytes == 4096);
  CHECK(tags.contains(7 * 4096, 4096));
}
