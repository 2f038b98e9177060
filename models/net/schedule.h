#pragma once
// A collective as a dependency graph of transfers and reductions (the send/receive schedule of the algorithm).
// A transfer moves bytes between two topology vertices along their route; a reduction combines bytes on one device
// (costed by the ReductionModel); a join costs nothing and waits for its dependencies (a phase boundary, or the
// in-switch reduction of a chunk). An op starts when all its dependencies have finished. Plain C++: the algorithms
// build schedules, tests count their bytes, the NetworkCore plays them.
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "models/net/topology.h"
#include "sim/core/units.h"

namespace roofsim::net {

using OpId = std::uint32_t;
inline constexpr OpId kNoOp = std::numeric_limits<OpId>::max();

enum class OpKind : std::uint8_t { transfer, reduce, join };

struct ScheduleOp {
  OpKind kind = OpKind::join;
  NodeId src = 0;  // transfer: sender; reduce: the device that reduces
  NodeId dst = 0;  // transfer: receiver
  Bytes bytes = 0;
};

class Schedule {
 public:
  // Dependencies equal to kNoOp are ignored, so builders can pass "the previous op, if any" without branching.
  OpId add_transfer(NodeId src, NodeId dst, Bytes bytes, std::initializer_list<OpId> deps = {});
  OpId add_reduce(NodeId device, Bytes bytes, std::initializer_list<OpId> deps = {});
  OpId add_join(const std::vector<OpId>& deps);
  OpId add_transfer(NodeId src, NodeId dst, Bytes bytes, const std::vector<OpId>& deps);
  // A dependency on an op that may come later in the schedule (a send window: a send waits for the receiver to have
  // consumed an earlier message, whose consumer is built after the send). finalize() rejects a cycle.
  void add_dependency(OpId op, OpId dependency);

  [[nodiscard]] std::size_t size() const { return ops_.size(); }
  [[nodiscard]] const ScheduleOp& op(OpId id) const { return ops_[id]; }
  [[nodiscard]] std::uint32_t dependency_count(OpId id) const { return dep_begin_[id + 1] - dep_begin_[id]; }
  [[nodiscard]] const OpId* dependencies_begin(OpId id) const { return deps_.data() + dep_begin_[id]; }
  [[nodiscard]] const OpId* dependencies_end(OpId id) const { return deps_.data() + dep_begin_[id + 1]; }

  // Merges the added dependencies and builds the successor lists (the reverse of the dependencies), once before the
  // schedule is played. Throws std::logic_error when the dependencies form a cycle (the schedule could never end).
  void finalize();
  [[nodiscard]] bool finalized() const { return succ_begin_.size() == ops_.size() + 1; }
  [[nodiscard]] const OpId* successors_begin(OpId id) const { return succ_.data() + succ_begin_[id]; }
  [[nodiscard]] const OpId* successors_end(OpId id) const { return succ_.data() + succ_begin_[id + 1]; }

  // Totals for tests and reports.
  [[nodiscard]] Bytes bytes_sent_by(NodeId node) const;
  [[nodiscard]] Bytes bytes_received_by(NodeId node) const;
  [[nodiscard]] Bytes bytes_reduced_by(NodeId node) const;
  [[nodiscard]] std::uint64_t transfers() const;

 private:
  OpId add(ScheduleOp op, const OpId* deps_begin, const OpId* deps_end);

  std::vector<ScheduleOp> ops_;
  std::vector<std::uint32_t> dep_begin_{0};
  std::vector<OpId> deps_;
  std::vector<std::pair<OpId, OpId>> added_;  // (op, dependency) from add_dependency, merged by finalize()
  std::vector<std::uint32_t> succ_begin_;
  std::vector<OpId> succ_;
};

}  // namespace roofsim::net
