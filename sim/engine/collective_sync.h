#pragma once
// Synchronisation of collectives across ranks (plain C++; the cluster run's SystemC shell calls it). A collective
// op with group size g splits the ranks into groups of g consecutive ranks; a group's collective may be issued on the
// network when every member has reached it and the group's previous collective has finished: collectives of one
// communicator run one at a time in the order they became ready (NCCL runs a communicator's collectives in order on
// its stream), so bucket i of a gradient AllReduce finishes at max(ready_i, finish_{i-1}) + allreduce_i.
//
// Ranks are simulated through classes (rank_symmetry.h): a class's representative reaching an op stands for every
// member, and the op ends for the class when the groups of all its members have finished.
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "sim/engine/rank_symmetry.h"

namespace roofsim {

struct GroupCollective {
  std::size_t op = 0;     // index in the workload
  std::size_t group = 0;  // ranks [group * size, (group + 1) * size)
};

class CollectiveSync {
 public:
  // group_sizes[op]: ranks per group of a collective op, 0 for an op that is not a collective.
  CollectiveSync(std::uint64_t ranks, RankClasses classes, std::vector<std::uint64_t> group_sizes);

  // The representative of class `cls` reached collective `op`; `ready` receives the group collectives all of whose
  // members have now reached it; returns those to issue now.
  [[nodiscard]] std::vector<GroupCollective> reached(std::size_t cls, std::size_t op,
                                                     std::vector<GroupCollective>& ready);
  // A group collective finished. `completed` receives the classes whose op has now ended; the return value lists
  // the group collectives to issue now (the communicator's next).
  [[nodiscard]] std::vector<GroupCollective> finished(GroupCollective done, std::vector<std::size_t>& completed);

  [[nodiscard]] std::uint64_t group_size(std::size_t op) const { return group_sizes_[op]; }
  [[nodiscard]] std::uint64_t groups(std::size_t op) const { return ranks_ / group_sizes_[op]; }
  [[nodiscard]] bool idle() const;

 private:
  using Communicator = std::pair<std::uint64_t, std::uint64_t>;  // (group size, group index)
  [[nodiscard]] std::vector<GroupCollective> enqueue(GroupCollective collective);

  std::uint64_t ranks_;
  RankClasses classes_;
  std::vector<std::uint64_t> group_sizes_;
  std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> arrived_;  // (op, group) -> ranks reached
  std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> pending_;  // (op, class) -> groups unfinished
  std::map<Communicator, std::deque<GroupCollective>> queue_;             // ready, waiting for the communicator
  std::map<Communicator, bool> busy_;
};

}  // namespace roofsim
