#include "models/dram/command_bus.h"

#include <algorithm>
#include <iterator>

namespace roofsim::dram {

bool CommandBus::taken_far(Cycle cycle) const {
  return std::binary_search(far_.begin(), far_.end(), cycle);
}

CommandBus::Cycle CommandBus::first_free(Cycle from, Cycle length) const {
  // The stretch's last taken cycle pushes it past itself; the cycles skipped are no start either, as each stretch
  // from them holds that cycle.
  Cycle t = from;
  for (Cycle k = t + length; k > t;) {
    --k;
    if (taken(k)) {
      t = k + 1;
      k = t + length;
    }
  }
  return t;
}

void CommandBus::take_outside(Cycle slot) {
  if (head_ == words_.size()) {
    // No live word: the words start again at this cycle (an arithmetic shift floors a negative cycle too).
    words_.clear();
    head_ = 0;
    base_ = (slot >> 6) * 64;
  }
  if (slot >= base_) {
    auto word = static_cast<std::uint64_t>(slot - base_) / 64;
    if (word >= kWindowWords && head_ > 0) {
      words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(head_));
      base_ += static_cast<Cycle>(head_ * 64);
      word -= head_;
      head_ = 0;
    }
    if (word < kWindowWords) {
      if (words_.capacity() < kWindowWords) words_.reserve(kWindowWords);
      if (word >= words_.size()) words_.resize(word + 1, 0);
      head_ = std::min<std::size_t>(head_, word);  // a dead word is all clear
      words_[word] |= std::uint64_t{1} << (static_cast<std::uint64_t>(slot - base_) % 64);
      return;
    }
  }
  const auto it = std::lower_bound(far_.begin(), far_.end(), slot);
  if (it == far_.end() || *it != slot) far_.insert(it, slot);
}

void CommandBus::take(Cycle at, Cycle length) {
  for (Cycle slot = at; slot < at + length; ++slot) take_one(slot);
}

void CommandBus::forget_before(Cycle cycle) {
  const auto live_start = [&] { return base_ + static_cast<Cycle>(head_ * 64); };
  while (head_ < words_.size() && live_start() + 64 <= cycle) words_[head_++] = 0;
  if (head_ < words_.size() && live_start() < cycle) words_[head_] &= ~std::uint64_t{0} << (cycle - live_start());
  // The dead prefix goes once it is as long as the live part and more than a few lines: the words' memory stays
  // small and is reused while it is in the cache.
  if (head_ >= 32 && head_ * 2 >= words_.size()) {
    words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(head_));
    base_ += static_cast<Cycle>(head_ * 64);
    head_ = 0;
  }
  if (!far_.empty() && far_.front() < cycle) {
    far_.erase(far_.begin(), std::lower_bound(far_.begin(), far_.end(), cycle));
    // A channel idle through a long replayed or communicating stretch catches up on its refreshes at its next
    // decision, every one of them taken here until that decision forgets them: the list's capacity would keep that
    // peak (a 1024-GPU training step's 1280 simulated channels held 2.7 GB of it).
    if (far_.capacity() > 4 * far_.size() + 64) far_.shrink_to_fit();
  }
}

std::size_t CommandBus::size() const {
  std::size_t taken = far_.size();
  for (std::size_t word = head_; word < words_.size(); ++word) {
    taken += static_cast<std::size_t>(__builtin_popcountll(words_[word]));
  }
  return taken;
}

}  // namespace roofsim::dram
