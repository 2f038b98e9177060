#include "models/dram/bank_queues.h"

#include <stdexcept>

namespace roofsim::dram {

BankQueues::BankQueues(std::uint32_t banks) : head_(banks, kNone), tail_(banks, kNone), front_order_(banks, 0) {
  // Banks with entries are bits of one word.
  if (banks > 64) throw std::invalid_argument("a DRAM channel of at most 64 banks");
}

void BankQueues::push(std::uint32_t bank, const Entry& entry) {
  std::uint32_t slot = free_;
  if (slot == kNone) {
    // The pool grows to the most entries queued at once (the channel's queue depth) and is reused from then on.
    slot = static_cast<std::uint32_t>(pool_.size());
    pool_.emplace_back();
  } else {
    free_ = pool_[slot].next;
  }
  pool_[slot] = Slot{entry, kNone};
  if (head_[bank] == kNone) {
    head_[bank] = slot;
    front_order_[bank] = entry.order;
    nonempty_ |= std::uint64_t{1} << bank;
  } else {
    pool_[tail_[bank]].next = slot;
  }
  tail_[bank] = slot;
  ++size_;
}

BankQueues::Entry BankQueues::take(std::uint32_t bank, std::uint32_t index) {
  std::uint32_t previous = kNone, slot = head_[bank];
  for (std::uint32_t i = 0; i < index; ++i) {
    previous = slot;
    slot = pool_[slot].next;
  }
  const std::uint32_t next = pool_[slot].next;
  if (previous == kNone) {
    head_[bank] = next;
    if (next == kNone) {
      nonempty_ &= ~(std::uint64_t{1} << bank);
    } else {
      front_order_[bank] = pool_[next].entry.order;
    }
  } else {
    pool_[previous].next = next;
  }
  if (tail_[bank] == slot) tail_[bank] = previous;
  const Entry entry = pool_[slot].entry;
  pool_[slot].next = free_;
  free_ = slot;
  --size_;
  return entry;
}

const BankQueues::Entry& BankQueues::at(std::uint32_t bank, std::uint32_t index) const {
  std::uint32_t slot = head_[bank];
  for (std::uint32_t i = 0; i < index; ++i) slot = pool_[slot].next;
  return pool_[slot].entry;
}

std::uint32_t BankQueues::find_row(std::uint32_t bank, std::uint64_t row) const {
  std::uint32_t index = 0;
  for (std::uint32_t slot = head_[bank]; slot != kNone; slot = pool_[slot].next, ++index) {
    if (pool_[slot].entry.row == row) return index;
  }
  return kNone;
}

std::uint32_t BankQueues::count_row(std::uint32_t bank, std::uint64_t row) const {
  std::uint32_t count = 0;
  for (std::uint32_t slot = head_[bank]; slot != kNone; slot = pool_[slot].next)
    count += pool_[slot].entry.row == row ? 1 : 0;
  return count;
}

}  // namespace roofsim::dram
