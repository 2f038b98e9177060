#pragma once
// A min-heap with four children per node whose sibling groups each fill one 64-byte cache line (for 16-byte items),
// for a compute unit's few tens of pending events and the network's many. A pop walks about half as many levels as a
// binary heap's, and each level's four candidates come in one line: a unit's timeline is cold whenever the unit wakes
// (the other units and the DRAM ran in between), so the lines a pop touches are what it costs. Items must be totally
// ordered by `>` (no two equal), so that the pop order is the one any other priority queue gives; a `>` without
// branches keeps a pop free of mispredictions.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

// An item ordered by its time, then by a key unique among the items (its push sequence in the high bits, so that
// items of one time pop in push order): one 128-bit comparison, which compiles without branches.
struct TimedKey {
  TimeFs at;
  std::uint64_t key;
  __extension__ using Order = unsigned __int128;
  bool operator>(const TimedKey& other) const { return order() > other.order(); }
  [[nodiscard]] Order order() const { return Order{at} << 64 | key; }
};

template <typename T>
class QuadHeap {
  static_assert(sizeof(T) == 16, "four items to a 64-byte line");

 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const T& top() const { return at(0); }

  // Starts loading the lines a pop reads first (the top and its children), ahead of their use.
  void prefetch() const {
    if (lines_.empty()) return;
    __builtin_prefetch(lines_.data());
    if (lines_.size() > 1) __builtin_prefetch(lines_.data() + 1);
  }

  void push(const T& item) {
    if (size_ + kOffset >= 4 * lines_.size()) lines_.emplace_back();
    std::size_t hole = size_++;
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 4;
      if (!(at(parent) > item)) break;
      at(hole) = at(parent);
      hole = parent;
    }
    at(hole) = item;
  }

  void pop() {
    const T last = at(--size_);
    if (size_ == 0) return;
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = 4 * hole + 1;
      if (first >= size_) break;
      std::size_t least = first;
      if (first + 4 <= size_) {
        // Four children: a tournament computed without branches (the times are random, so branches mispredict).
        const std::size_t left = first + static_cast<std::size_t>(at(first) > at(first + 1));
        const std::size_t right = first + 2 + static_cast<std::size_t>(at(first + 2) > at(first + 3));
        const std::size_t pick = 0 - static_cast<std::size_t>(at(left) > at(right));  // all ones: right
        least = (right & pick) | (left & ~pick);
      } else {
        for (std::size_t c = first + 1; c < size_; ++c) {
          if (at(least) > at(c)) least = c;
        }
      }
      if (!(last > at(least))) break;
      at(hole) = at(least);
      hole = least;
    }
    at(hole) = last;
  }

 private:
  // Item i sits at position i + 3, so that the children 4i + 1 .. 4i + 4 of item i fill line i + 1.
  static constexpr std::size_t kOffset = 3;
  struct alignas(64) Line {
    T items[4];
  };
  T& at(std::size_t i) { return lines_[(i + kOffset) / 4].items[(i + kOffset) % 4]; }
  [[nodiscard]] const T& at(std::size_t i) const { return lines_[(i + kOffset) / 4].items[(i + kOffset) % 4]; }

  std::vector<Line> lines_;
  std::size_t size_ = 0;
};

}  // namespace roofsim
