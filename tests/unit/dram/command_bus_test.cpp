// The compact command bus answers as the 4096-slot ring it replaced: random takes and queries near a moving cycle
// (as the controller makes them), takes far ahead and behind (the ring's wrap-around), and the pruning bound.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/dram/command_bus.h"

namespace roofsim::dram {
namespace {

using Cycle = CommandBus::Cycle;

// The ring: slot c is taken when owner[c mod kRingSlots] == c.
struct RingBus {
  std::vector<Cycle> owner = std::vector<Cycle>(static_cast<std::size_t>(CommandBus::kRingSlots), -1);
  [[nodiscard]] Cycle first_free(Cycle from, Cycle length) const {
    Cycle t = from;
    for (Cycle k = 0; k < length; ++k) {
      const Cycle slot = t + k;
      if (owner[static_cast<std::size_t>(slot) & static_cast<std::size_t>(CommandBus::kRingSlots - 1)] == slot) {
        t = slot + 1;
        k = -1;
      }
    }
    return t;
  }
  void take(Cycle at, Cycle length) {
    for (Cycle slot = at; slot < at + length; ++slot) {
      owner[static_cast<std::size_t>(slot) & static_cast<std::size_t>(CommandBus::kRingSlots - 1)] = slot;
    }
  }
};

TEST_CASE("the first free stretch skips taken cycles, a stretch needs all its cycles free") {
  CommandBus bus;
  bus.take(10, 2);  // 10, 11
  bus.take(13, 1);
  CHECK(bus.first_free(0, 1) == 0);
  CHECK(bus.first_free(10, 1) == 12);
  CHECK(bus.first_free(9, 2) == 14);  // 9-10 clashes, 12-13 clashes
  CHECK(bus.first_free(12, 1) == 12);
  CHECK(bus.first_free(8, 2) == 8);
}

TEST_CASE("a take a ring's length away frees the cycle of the same residue, as the ring did") {
  CommandBus bus;
  bus.take(100, 1);
  bus.take(100 + CommandBus::kRingSlots, 1);
  CHECK(bus.first_free(100, 1) == 100);
  CHECK(bus.first_free(100 + CommandBus::kRingSlots, 1) == 101 + CommandBus::kRingSlots);
  bus.take(100 - CommandBus::kRingSlots, 1);  // behind: overwrites again
  CHECK(bus.first_free(100 + CommandBus::kRingSlots, 1) == 100 + CommandBus::kRingSlots);
  CHECK(bus.first_free(100 - CommandBus::kRingSlots, 1) == 101 - CommandBus::kRingSlots);
}

TEST_CASE("random takes and queries from a moving cycle agree with the ring, and forgetting bounds the list") {
  std::mt19937_64 random(7);
  for (const Cycle spread : {Cycle{40}, Cycle{600}, Cycle{9000}}) {
    CAPTURE(spread);
    CommandBus bus;
    RingBus ring;
    std::size_t mismatches = 0, largest = 0;
    for (Cycle step = 0; step < 20000; ++step) {
      const Cycle now = step * 3;
      bus.forget_before(now);
      // Queries and takes from `now` on (the controller never asks before its decision cycle); with the widest
      // spread, many lie more than a ring's length apart.
      const Cycle offset = static_cast<Cycle>(random() % static_cast<std::uint64_t>(spread));
      const Cycle length = 1 + static_cast<Cycle>(random() % 3);
      const Cycle from = now + offset;
      const Cycle free_bus = bus.first_free(from, length);
      const Cycle free_ring = ring.first_free(from, length);
      if (free_bus != free_ring && mismatches++ < 5) MESSAGE("at ", from, ": ", free_bus, " vs ring ", free_ring);
      if (random() % 2 == 0) {
        bus.take(free_bus, length);
        ring.take(free_ring, length);
      }
      largest = std::max(largest, bus.size());
    }
    CHECK(mismatches == 0);
    // Everything taken lies in [now, now + spread + a few): at most that many cycles are kept (plus a slack of
    // dead entries before the next compaction).
    CHECK(largest <= static_cast<std::size_t>(spread) + 64);
  }
}

}  // namespace
}  // namespace roofsim::dram
