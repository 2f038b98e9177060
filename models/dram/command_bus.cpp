#include "models/dram/command_bus.h"

#include <iterator>

namespace roofsim::dram {

CommandBus::Cycle CommandBus::next_taken(Cycle from) const {
  const auto live = static_cast<Cycle>(words_.size() - head_);
  Cycle word = word_of(from) - first_word_;
  if (word >= live) return kNoneTaken;
  std::uint64_t bits = 0;
  if (word < 0) {
    word = 0;
    bits = words_[head_];
  } else {
    bits = words_[head_ + static_cast<std::size_t>(word)] & (~std::uint64_t{0} << (from & 63));
  }
  while (bits == 0) {
    if (++word >= live) return kNoneTaken;
    bits = words_[head_ + static_cast<std::size_t>(word)];
  }
  return (first_word_ + word) * 64 + __builtin_ctzll(bits);
}

CommandBus::Cycle CommandBus::first_free(Cycle from, Cycle length) const {
  // Each taken cycle inside the stretch pushes it past itself.
  Cycle t = from;
  for (Cycle taken = next_taken(t); taken < t + length; taken = next_taken(t)) t = taken + 1;
  return t;
}

void CommandBus::take(Cycle at, Cycle length) {
  for (Cycle slot = at; slot < at + length; ++slot) {
    const Cycle word = word_of(slot);
    if (words_.size() == head_) {
      words_.resize(head_ + 1, 0);
      first_word_ = word;
    } else if (word < first_word_) {
      // Before the live words (a take behind the others): grow them at the front.
      const auto missing = static_cast<std::size_t>(first_word_ - word);
      if (missing <= head_) {
        head_ -= missing;
      } else {
        words_.insert(words_.begin() + static_cast<std::ptrdiff_t>(head_), missing - head_, 0);
        head_ = 0;
      }
      first_word_ = word;
    }
    const auto index = head_ + static_cast<std::size_t>(word - first_word_);
    if (index >= words_.size()) words_.resize(index + 1, 0);
    const std::uint64_t bit = std::uint64_t{1} << (slot & 63);
    if ((words_[index] & bit) == 0) {
      words_[index] |= bit;
      ++taken_;
    }
  }
}

void CommandBus::forget_before(Cycle cycle) {
  const Cycle word = word_of(cycle);
  while (head_ < words_.size() && first_word_ < word) {
    taken_ -= static_cast<std::size_t>(__builtin_popcountll(words_[head_]));
    words_[head_++] = 0;
    ++first_word_;
  }
  if (head_ < words_.size() && first_word_ == word) {
    const std::uint64_t before = words_[head_] & ((std::uint64_t{1} << (cycle & 63)) - 1);
    taken_ -= static_cast<std::size_t>(__builtin_popcountll(before));
    words_[head_] &= ~before;
  }
  if (head_ == words_.size()) {
    // Nothing live: start over at the front (the next take sets first_word_).
    words_.clear();
    head_ = 0;
    return;
  }
  // The dead prefix goes once it is as long as the live part and more than a few words: the memory stays small and
  // is reused while it is in the cache.
  if (head_ >= 8 && head_ * 2 >= words_.size()) {
    words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

}  // namespace roofsim::dram
