#include "models/dram/command_bus.h"

#include <algorithm>
#include <iterator>

namespace roofsim::dram {

CommandBus::Cycle CommandBus::first_free(Cycle from, Cycle length) const {
  // The taken cycles from `from` on, in order: each one inside the stretch pushes it past itself.
  const auto end = taken_.end();
  auto it = std::lower_bound(taken_.begin() + static_cast<std::ptrdiff_t>(head_), end, from);
  Cycle t = from;
  for (; it != end && *it < t + length; ++it) t = *it + 1;
  return t;
}

void CommandBus::take_one(Cycle slot) {
  // Takes arrive almost in cycle order: the place is found in a step or two from the back.
  auto position = taken_.end();
  const auto live = taken_.begin() + static_cast<std::ptrdiff_t>(head_);
  while (position != live && *std::prev(position) > slot) --position;
  if (position != live && *std::prev(position) == slot) return;
  taken_.insert(position, slot);
}

void CommandBus::take(Cycle at, Cycle length) {
  for (Cycle slot = at; slot < at + length; ++slot) take_one(slot);
}

void CommandBus::forget_before(Cycle cycle) {
  while (head_ < taken_.size() && taken_[head_] < cycle) ++head_;
  // The dead prefix goes once it is as long as the live part and more than a few lines: the list's memory stays
  // small and is reused while it is in the cache.
  if (head_ >= 32 && head_ * 2 >= taken_.size()) {
    taken_.erase(taken_.begin(), taken_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

}  // namespace roofsim::dram
