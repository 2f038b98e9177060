#include "sim/engine/collective_sync.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace roofsim {

CollectiveSync::CollectiveSync(std::uint64_t ranks, RankClasses classes, std::vector<std::uint64_t> group_sizes)
    : ranks_(ranks), classes_(std::move(classes)), group_sizes_(std::move(group_sizes)) {
  for (const auto g : group_sizes_) {
    if (g != 0 && ranks_ % g != 0) {
      throw std::invalid_argument("a collective's group size must divide the number of ranks");
    }
  }
}

std::vector<GroupCollective> CollectiveSync::reached(std::size_t cls, std::size_t op,
                                                     std::vector<GroupCollective>& ready) {
  const std::uint64_t g = group_sizes_.at(op);
  std::set<std::uint64_t> groups;
  for (const auto rank : classes_.members.at(cls)) groups.insert(rank / g);
  pending_[{op, cls}] = groups.size();
  std::vector<GroupCollective> issue;
  for (const auto rank : classes_.members[cls]) {
    const std::uint64_t group = rank / g;
    if (++arrived_[{op, group}] == g) {
      ready.push_back(GroupCollective{op, group});
      for (auto& collective : enqueue(GroupCollective{op, group})) issue.push_back(collective);
    }
  }
  return issue;
}

std::vector<GroupCollective> CollectiveSync::enqueue(GroupCollective collective) {
  const Communicator communicator{group_sizes_[collective.op], collective.group};
  if (busy_[communicator]) {
    queue_[communicator].push_back(collective);
    return {};
  }
  busy_[communicator] = true;
  return {collective};
}

std::vector<GroupCollective> CollectiveSync::finished(GroupCollective done, std::vector<std::size_t>& completed) {
  const std::uint64_t g = group_sizes_.at(done.op);
  // Every class with a member in the group has one group fewer to wait for.
  std::set<std::size_t> touched;
  for (std::uint64_t rank = done.group * g; rank < (done.group + 1) * g; ++rank) {
    touched.insert(classes_.class_of_rank[rank]);
  }
  for (const auto cls : touched) {
    auto& left = pending_.at({done.op, cls});
    if (left == 0) throw std::logic_error("a collective finished twice");
    if (--left == 0) completed.push_back(cls);
  }
  const Communicator communicator{g, done.group};
  auto& queue = queue_[communicator];
  if (queue.empty()) {
    busy_[communicator] = false;
    return {};
  }
  const GroupCollective next = queue.front();
  queue.pop_front();
  return {next};
}

bool CollectiveSync::idle() const {
  return std::none_of(busy_.begin(), busy_.end(), [](const auto& entry) { return entry.second; });
}

}  // namespace roofsim
