// The compact command bus against a plain set of taken cycles: random takes and queries near a moving cycle (as the
// controller makes them), takes far apart (the 4096-slot ring it replaced lost a cycle to a take 4096 cycles away),
// and the pruning bound.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "models/dram/command_bus.h"

namespace roofsim::dram {
namespace {

using Cycle = CommandBus::Cycle;

// The reference: every taken cycle in an ordered set.
struct SetBus {
  std::set<Cycle> taken;
  [[nodiscard]] Cycle first_free(Cycle from, Cycle length) const {
    Cycle t = from;
    for (auto it = taken.lower_bound(from); it != taken.end() && *it < t + length; ++it) t = *it + 1;
    return t;
  }
  void take(Cycle at, Cycle length) {
    for (Cycle slot = at; slot < at + length; ++slot) taken.insert(slot);
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

TEST_CASE("a take any distance away frees nothing (the ring it replaced lost a cycle 4096 cycles away)") {
  CommandBus bus;
  bus.take(100, 1);
  bus.take(100 + 4096, 1);
  bus.take(100 - 4096, 1);
  CHECK(bus.first_free(100, 1) == 101);
  CHECK(bus.first_free(100 + 4096, 1) == 101 + 4096);
  CHECK(bus.first_free(100 - 4096, 1) == 101 - 4096);
}

TEST_CASE(
    "random takes and queries from a moving cycle agree with a set of taken cycles, and forgetting bounds the list") {
  std::mt19937_64 random(7);
  for (const Cycle spread : {Cycle{40}, Cycle{600}, Cycle{9000}}) {
    CAPTURE(spread);
    CommandBus bus;
    SetBus reference;
    std::size_t mismatches = 0, largest = 0;
    for (Cycle step = 0; step < 20000; ++step) {
      const Cycle now = step * 3;
      bus.forget_before(now);
      // Queries and takes from `now` on (the controller never asks before its decision cycle); with the widest
      // spread, many lie more than 4096 cycles apart.
      const Cycle offset = static_cast<Cycle>(random() % static_cast<std::uint64_t>(spread));
      const Cycle length = 1 + static_cast<Cycle>(random() % 3);
      const Cycle from = now + offset;
      const Cycle free_bus = bus.first_free(from, length);
      const Cycle free_set = reference.first_free(from, length);
      if (free_bus != free_set && mismatches++ < 5) MESSAGE("at ", from, ": ", free_bus, " vs set ", free_set);
      if (random() % 2 == 0) {
        bus.take(free_bus, length);
        reference.take(free_set, length);
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

TEST_CASE("forgetting a long burst of far-apart takes gives its memory back") {
  // A channel idle through a long stretch issues its refreshes one by one when it next decides: each lies beyond the
  // words' window of the one before, so each goes to the list of far cycles, until the decision forgets them.
  using roofsim::dram::CommandBus;
  CommandBus bus;
  const CommandBus::Cycle apart = 1 << 20;
  for (CommandBus::Cycle i = 0; i < 100000; ++i) bus.take(i * apart, 1);
  CHECK(bus.held_bytes() >= 100000 * sizeof(CommandBus::Cycle));
  bus.forget_before(99999 * apart);
  CHECK(bus.size() == 1);
  CHECK(bus.held_bytes() < 4096);
  CHECK(bus.first_free(99999 * apart, 1) == 99999 * apart + 1);
}
