#pragma once
// The command bus of one DRAM channel (or its row bus, for HBM): which cycles a command already occupies, so that a
// new command goes to the first free stretch. Plain C++, used by DramTimingChecker.
//
// The taken cycles are a bitmap, one bit per cycle, over the words from the oldest cycle still asked about to the
// latest taken: a query reads a word or two and finds the next taken cycle with one bit scan, a take sets bits. A
// decision asks about a few cycles near its own, so the live part is a few words (160 HBM3 pseudo-channels evicted
// each other's 32 KB rings from the cache). Unlike a ring, it keeps every cycle taken, however far apart (a take 4096
// cycles from a taken cycle freed it in a ring; a DDR5 stream, whose row and column commands share the bus, reached
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
  [[nodiscard]] std::size_t size() const { return taken_; }

 private:
  static constexpr Cycle kNoneTaken = INT64_MAX;
  // The first taken cycle >= from (kNoneTaken: none).
  [[nodiscard]] Cycle next_taken(Cycle from) const;
  [[nodiscard]] static Cycle word_of(Cycle cycle) { return cycle >> 6; }  // floor(cycle / 64)
  // Bit b of words_[head_ + k]: cycle (first_word_ + k) x 64 + b is taken.
  std::vector<std::uint64_t> words_;
  std::size_t head_ = 0;
  Cycle first_word_ = 0;
  std::size_t taken_ = 0;
};

}  // namespace roofsim::dram
