#include "sim/engine/collective_sync.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace roofsim {

CollectiveSync::CollectiveSync(std::uint64_t ranks, RankClasses classes, std::vector<std::vector<GroupLayout>> layouts,
                               std::vector<std::size_t> graph_of_class)
    : ranks_(ranks),
      classes_(std::move(classes)),
      layouts_(std::move(layouts)),
      graph_of_class_(std::move(graph_of_class)) {
  if (graph_of_class_.size() != classes_.count()) {
    throw std::invalid_argument("every class of ranks needs its graph");
  }
  for (const auto& graph : layouts_) {
    for (const auto& layout : graph) {
      if (layout.size != 0 && (layout.stride == 0 || ranks_ % (layout.size * layout.stride) != 0)) {
        throw std::invalid_argument("a collective's group size times its stride must divide the number of ranks");
      }
    }
  }
}

CollectiveSync::CollectiveSync(std::uint64_t ranks, RankClasses classes, std::vector<GroupLayout> layouts)
    : CollectiveSync(ranks, classes, {std::move(layouts)}, std::vector<std::size_t>(classes.count(), 0)) {}

std::vector<GroupCollective> CollectiveSync::reached(std::size_t cls, std::size_t op,
                                                     std::vector<GroupCollective>& ready) {
  const std::size_t graph = graph_of_class_.at(cls);
  const GroupLayout& layout = layouts_.at(graph).at(op);
  std::set<std::uint64_t> groups;
  for (const auto rank : classes_.members.at(cls)) groups.insert(layout.group_of(rank));
  pending_[{graph, op, cls}] = groups.size();
  std::vector<GroupCollective> issue;
  for (const auto rank : classes_.members[cls]) {
    const std::uint64_t group = layout.group_of(rank);
    auto& arrived = arrived_[{graph, op, group}];
    if (++arrived == layout.size) {
      arrived_.erase({graph, op, group});
      ready.push_back(GroupCollective{op, group, graph});
      for (auto& collective : enqueue(GroupCollective{op, group, graph})) issue.push_back(collective);
    }
  }
  return issue;
}

std::vector<GroupCollective> CollectiveSync::enqueue(GroupCollective collective) {
  const GroupLayout& layout = this->layout(collective);
  const Communicator communicator{layout.size, layout.stride, collective.group};
  if (busy_[communicator]) {
    queue_[communicator].push_back(collective);
    return {};
  }
  busy_[communicator] = true;
  return {collective};
}

std::vector<GroupCollective> CollectiveSync::finished(GroupCollective done, std::vector<std::size_t>& completed) {
  const GroupLayout& layout = this->layout(done);
  // Every class with a member in the group has one group fewer to wait for.
  std::set<std::size_t> touched;
  for (std::uint64_t i = 0; i < layout.size; ++i) touched.insert(classes_.class_of_rank[layout.member(done.group, i)]);
  for (const auto cls : touched) {
    const auto it = pending_.find({done.graph, done.op, cls});
    if (it == pending_.end() || it->second == 0) throw std::logic_error("a collective finished twice");
    if (--it->second == 0) {
      pending_.erase(it);
      completed.push_back(cls);
    }
  }
  const Communicator communicator{layout.size, layout.stride, done.group};
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
