#pragma once
// The command bus of one DRAM channel (or its row bus, for HBM): which cycles a command already occupies, so that a
// new command goes to the first free stretch. Plain C++, used by DramTimingChecker.
//
// The taken cycles are kept as a short sorted list, not as one slot per cycle: a decision asks about a few cycles
// near its own, and 160 HBM3 pseudo-channels with a 32 KB ring each evicted one another from the cache (a lookup
// was a cache miss; the list's live part is one or two cache lines). Unlike that ring, it keeps every cycle taken: a
// take 4096 cycles from a taken cycle freed it (a DDR5 stream, whose row and column commands share the bus, reached
// that).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace roofsim::dram {

class CommandBus {
 public:
  using Cycle = std::int64_t;

  // The first cycle t >= from such that cycles [t, t + length) are all free.
  [[nodiscard]] Cycle first_free(Cycle from, Cycle length) const;
  // Occupies cycles [at, at + length).
  void take(Cycle at, Cycle length);
  // No cycle before `cycle` will be asked about any more: the taken cycles before it can go.
  void forget_before(Cycle cycle);
  // Taken cycles kept (for tests: forget_before bounds it).
  [[nodiscard]] std::size_t size() const { return taken_.size() - head_; }

 private:
  void take_one(Cycle slot);
  std::vector<Cycle> taken_;  // sorted; [head_, end) are live
  std::size_t head_ = 0;
};

}  // namespace roofsim::dram
