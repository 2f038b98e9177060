#pragma once
// The command bus of one DRAM channel (or its row bus, for HBM): which cycles a command already occupies, so that a
// new command goes to the first free stretch. Plain C++, used by DramTimingChecker.
//
// The taken cycles near the decisions are bits of 64-cycle words: a decision asks about a few cycles near its own,
// so the live words are a line or two of the host's cache (160 HBM3 pseudo-channels with a 32 KB ring each evicted
// one another), and a question or a take is a mask and a bit scan rather than a walk through a sorted list (whose
// inserts behind the cycles a decision had committed ahead moved its tail). The words span at most kWindowWords;
// a cycle taken outside them (a refresh issued far ahead of the decisions) goes to a sorted list, so that every
// cycle taken is kept however far apart (a take 4096 cycles from a taken cycle freed it in that ring; a DDR5 stream,
// whose row and column commands share the bus, reached that).
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
  [[nodiscard]] std::size_t size() const;
  // Memory it holds for them, in bytes (for tests: forget_before gives back what a burst of takes grew).
  [[nodiscard]] std::size_t held_bytes() const {
    return words_.capacity() * sizeof(std::uint64_t) + far_.capacity() * sizeof(Cycle);
  }

 private:
  static constexpr std::size_t kWindowWords = 128;

  // Whether `cycle` is taken.
  [[nodiscard]] bool taken(Cycle cycle) const {
    const auto offset = static_cast<std::uint64_t>(cycle - base_);
    const std::size_t word = offset / 64;
    // A cycle before base_ wraps to a word past the end.
    if (word < words_.size() && ((words_[word] >> (offset % 64)) & 1U) != 0) return true;
    return !far_.empty() && taken_far(cycle);
  }
  [[nodiscard]] bool taken_far(Cycle cycle) const;
  void take_one(Cycle slot) {
    const auto offset = static_cast<std::uint64_t>(slot - base_);
    const std::size_t word = offset / 64;
    if (word < words_.size()) {
      words_[word] |= std::uint64_t{1} << (offset % 64);
      if (word < head_) head_ = word;  // a dead word is all clear
      return;
    }
    take_outside(slot);
  }
  // A take outside the live words: they grow (or start again at `slot` when none is live) to it if it is within
  // kWindowWords, else it goes to far_.
  void take_outside(Cycle slot);

  // Bit b of words_[w] is cycle base_ + 64 w + b; the words before head_ are dead (all clear), dropped now and then.
  std::vector<std::uint64_t> words_;
  std::size_t head_ = 0;
  Cycle base_ = 0;          // a multiple of 64
  std::vector<Cycle> far_;  // taken cycles outside the words when they were taken, sorted
};

}  // namespace roofsim::dram
