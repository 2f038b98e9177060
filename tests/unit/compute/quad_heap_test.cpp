// The compute unit's timeline (QuadHeap) and request queue (RingQueue) against the standard containers they replace:
// the same pop order under interleaved pushes and pops, through growth.
#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "models/compute/ring_queue.h"
#include "models/kernel/quad_heap.h"

using namespace roofsim;

namespace {

struct Item {
  std::uint64_t at;
  std::uint64_t seq;
  bool operator>(const Item& other) const { return at != other.at ? at > other.at : seq > other.seq; }
};

}  // namespace

TEST_CASE("a four-ary heap pops in the order of a binary priority queue") {
  QuadHeap<Item> heap;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> reference;
  std::uint64_t state = 99, seq = 0;
  for (int round = 0; round < 20000; ++round) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    // Pushes outnumber pops early (the heap grows past 100 items), then pops drain it; times repeat often.
    const bool push = reference.empty() || (state >> 60) < (round < 10000 ? 10U : 6U);
    if (push) {
      const Item item{(state >> 20) % 64, seq++};
      heap.push(item);
      reference.push(item);
    } else {
      REQUIRE(!heap.empty());
      CHECK(heap.top().at == reference.top().at);
      CHECK(heap.top().seq == reference.top().seq);
      heap.pop();
      reference.pop();
    }
    CHECK(heap.size() == reference.size());
  }
  for (; !reference.empty(); reference.pop(), heap.pop()) CHECK(heap.top().seq == reference.top().seq);
  CHECK(heap.empty());
}

TEST_CASE("a ring queue is first in first out through growth and wrap-around") {
  RingQueue<std::uint64_t> ring;
  std::deque<std::uint64_t> reference;
  std::uint64_t next = 0;
  for (int round = 0; round < 5000; ++round) {
    // Bursts of pushes (growth at 16, 32, 64 with the head anywhere) and of pops.
    const int pushes = (round % 7) * 3;
    for (int i = 0; i < pushes; ++i) {
      ring.push_back(next);
      reference.push_back(next++);
    }
    const int pops = round % 5 == 0 ? 0 : (round % 11) * 2;
    for (int i = 0; i < pops && !reference.empty(); ++i) {
      CHECK(ring.front() == reference.front());
      ring.pop_front();
      reference.pop_front();
    }
    CHECK(ring.size() == reference.size());
  }
}
