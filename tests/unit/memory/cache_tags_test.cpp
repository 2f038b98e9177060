#include <doctest/doctest.h>

#include "models/memory/cache_tags.h"

using namespace roofsim;

namespace {
CacheTagsParams small_cache(std::uint64_t ways) {
  return CacheTagsParams{64 * 1024, 128, 4096, ways};
}
}  // namespace

TEST_CASE("a cold read misses every byte and fetches whole sectors, and a second read hits") {
  CacheTags tags(small_cache(4));
  CacheLookup first;
  tags.read(10 * 4096 + 100, 1000, first);
  CHECK(first.hit_bytes == 0);
  CHECK(first.miss_bytes == 1000);
  // Bytes 100..1099 of the block touch sectors 0..8 (128 B each): one contiguous fetch of 9 sectors.
  REQUIRE(first.fetches.size() == 1);
  CHECK(first.fetches[0].address == 10 * 4096);
  CHECK(first.fetches[0].bytes == 9 * 128);
  CacheLookup second;
  tags.read(10 * 4096 + 100, 1000, second);
  CHECK(second.hit_bytes == 1000);
  CHECK(second.miss_bytes == 0);
  CHECK(second.fetches.empty());
}

TEST_CASE("validity is per sector: another part of a tracked block still misses") {
  CacheTags tags(small_cache(4));
  CacheLookup a;
  tags.read(0, 128, a);
  CacheLookup b;
  tags.read(128, 128, b);
  CHECK(b.miss_bytes == 128);
  CHECK(b.hit_bytes == 0);
  CHECK(tags.contains(0, 256));
}

TEST_CASE("LRU: in a fully associative cache of 16 blocks, the least recently used block is evicted") {
  CacheTags tags(CacheTagsParams{16 * 4096, 128, 4096, 16});
  CHECK(tags.sets() == 1);
  CHECK(tags.ways() == 16);
  for (Bytes block = 0; block < 16; ++block) {
    CacheLookup lookup;
    tags.read(block * 4096, 4096, lookup);
  }
  CacheLookup touch;
  tags.read(0, 4096, touch);  // block 0 becomes the most recent
  CHECK(touch.hit_bytes == 4096);
  CacheLookup newcomer;
  tags.read(16 * 4096, 4096, newcomer);  // evicts block 1, the least recent
  CHECK(tags.evictions() == 1);
  CHECK(tags.contains(0, 4096));
  CHECK_FALSE(tags.contains(4096, 4096));
  CHECK(tags.contains(2 * 4096, 4096));
}

TEST_CASE("a working set larger than the cache streamed twice misses every time (LRU thrashes)") {
  CacheTags tags(CacheTagsParams{16 * 4096, 128, 4096, 16});
  Bytes misses = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (Bytes block = 0; block < 17; ++block) {
      CacheLookup lookup;
      tags.read(block * 4096, 4096, lookup);
      misses += lookup.miss_bytes;
    }
  }
  CHECK(misses == 2 * 17 * 4096);
}

TEST_CASE("writes allocate the written sectors without fetching them") {
  CacheTags tags(small_cache(4));
  tags.write(8192, 512);
  CHECK(tags.contains(8192, 512));
  CHECK_FALSE(tags.contains(8192 + 512, 128));
  CacheLookup lookup;
  tags.read(8192, 512, lookup);
  CHECK(lookup.hit_bytes == 512);
}

TEST_CASE("hits wait for a pending fill's data") {
  CacheTags tags(small_cache(4));
  CacheLookup miss;
  tags.read(0, 4096, miss);
  tags.mark_ready(0, 4096, 5000);
  CacheLookup hit;
  tags.read(0, 4096, hit);
  CHECK(hit.hit_ready_fs == 5000);
}

TEST_CASE("blocks coarser than 64 lines keep validity in 64 sectors") {
  CacheTags tags(CacheTagsParams{1024 * 1024, 128, 16384, 4});
  CHECK(tags.sector_bytes() == 256);
}
