#pragma once
// Synchronisation of collectives across ranks (plain C++; the cluster run's SystemC shell calls it). A collective
// op's groups are laid out by its GroupLayout (size and stride: consecutive ranks, or one rank of every tensor-parallel
// block, ...); a group's collective may be issued on the network when every member has reached it and the group's
// previous collective has finished: collectives of one communicator (the same ranks) run one at a time in the order
// they became ready (NCCL runs a communicator's collectives in order on its stream), so bucket i of a gradient
// AllReduce finishes at max(ready_i, finish_{i-1}) + allreduce_i.
//
// Ranks are simulated through classes (rank_symmetry.h): a class's representative reaching an op stands for every
// member, and the op ends for the class when the groups of all its members have finished. Classes may run different
// graphs (a pipeline stage's schedule orders its passes); a collective's members are always of one graph.
#include <cstdint>
#include <deque>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/engine/rank_symmetry.h"

namespace roofsim {

// The groups of a collective: `size` members `stride` ranks apart. Group k's first member is
// (k / stride) x stride x size + k mod stride, so groups of consecutive ranks (stride 1) are [k size, (k + 1) size),
// and with ranks laid out as ((dp_i x pp + pp_i) x tp + tp_i) the tensor-parallel groups are stride 1, a pipeline's
// stages stride tp, the data-parallel replicas stride tp x pp.
struct GroupLayout {
  std::uint64_t size = 0;  // 0: not a collective
  std::uint64_t stride = 1;
  [[nodiscard]] std::uint64_t group_of(std::uint64_t rank) const {
    return rank / (stride * size) * stride + rank % stride;
  }
  [[nodiscard]] std::uint64_t first(std::uint64_t group) const {
    return group / stride * stride * size + group % stride;
  }
  [[nodiscard]] std::uint64_t member(std::uint64_t group, std::uint64_t i) const { return first(group) + i * stride; }
  // A member's position in its group.
  [[nodiscard]] std::uint64_t index_of(std::uint64_t rank) const { return rank / stride % size; }
  [[nodiscard]] std::uint64_t groups(std::uint64_t ranks) const { return ranks / size; }
};

struct GroupCollective {
  std::size_t op = 0;       // index in the graph
  std::uint64_t group = 0;  // GroupLayout::group_of its members
  std::size_t graph = 0;    // which of the run's graphs the op belongs to
};

class CollectiveSync {
 public:
  // layouts[graph][op]: the groups of a collective op of each graph; graph_of_class[c]: the graph class c runs.
  CollectiveSync(std::uint64_t ranks, RankClasses classes, std::vector<std::vector<GroupLayout>> layouts,
                 std::vector<std::size_t> graph_of_class);
  // One graph for every class.
  CollectiveSync(std::uint64_t ranks, RankClasses classes, std::vector<GroupLayout> layouts);

  // The representative of class `cls` reached collective `op`; `ready` receives the group collectives all of whose
  // members have now reached it; returns those to issue now.
  [[nodiscard]] std::vector<GroupCollective> reached(std::size_t cls, std::size_t op,
                                                     std::vector<GroupCollective>& ready);
  // A group collective finished. `completed` receives the classes whose op has now ended; the return value lists
  // the group collectives to issue now (the communicator's next).
  [[nodiscard]] std::vector<GroupCollective> finished(GroupCollective done, std::vector<std::size_t>& completed);

  [[nodiscard]] const GroupLayout& layout(const GroupCollective& c) const { return layouts_[c.graph][c.op]; }
  [[nodiscard]] const GroupLayout& layout_of_class(std::size_t cls, std::size_t op) const {
    return layouts_[graph_of_class_[cls]][op];
  }
  [[nodiscard]] std::size_t graph_of_class(std::size_t cls) const { return graph_of_class_[cls]; }
  [[nodiscard]] bool idle() const;

 private:
  using Communicator = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;  // (size, stride, group)
  using Key = std::tuple<std::size_t, std::size_t, std::uint64_t>;               // (graph, op, group or class)
  [[nodiscard]] std::vector<GroupCollective> enqueue(GroupCollective collective);

  std::uint64_t ranks_;
  RankClasses classes_;
  std::vector<std::vector<GroupLayout>> layouts_;
  std::vector<std::size_t> graph_of_class_;
  std::map<Key, std::uint64_t> arrived_;                       // (graph, op, group) -> ranks reached
  std::map<Key, std::uint64_t> pending_;                       // (graph, op, class) -> groups unfinished
  std::map<Communicator, std::deque<GroupCollective>> queue_;  // ready, waiting for the communicator
  std::map<Communicator, bool> busy_;
};

}  // namespace roofsim
