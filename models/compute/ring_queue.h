#pragma once
// A FIFO in one power-of-two ring that grows by doubling: a compute unit's request queue is pushed and popped once
// per read chunk, and a ring keeps its entries in one block that stays warm (std::deque walks a map of nodes and
// allocates one per few entries as the queue moves).
#include <cstddef>
#include <utility>
#include <vector>

namespace roofsim {

template <typename T>
class RingQueue {
 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const T& front() const { return items_[head_]; }
  [[nodiscard]] T& front() { return items_[head_]; }
  void prefetch_front() const {
    if (size_ != 0) __builtin_prefetch(&items_[head_]);
  }

  void push_back(const T& item) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) & (items_.size() - 1)] = item;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (items_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(items_.empty() ? 16 : 2 * items_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(items_[(head_ + i) & (items_.size() - 1)]);
    items_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace roofsim
