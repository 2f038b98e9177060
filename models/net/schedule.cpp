#include "models/net/schedule.h"

#include <stdexcept>

namespace roofsim::net {

OpId Schedule::add(ScheduleOp op, const OpId* deps_begin, const OpId* deps_end) {
  const auto id = static_cast<OpId>(ops_.size());
  for (const OpId* dep = deps_begin; dep != deps_end; ++dep) {
    if (*dep == kNoOp) continue;
    if (*dep >= id) throw std::logic_error("schedule: an op may depend only on earlier ops");
    deps_.push_back(*dep);
  }
  ops_.push_back(op);
  dep_begin_.push_back(static_cast<std::uint32_t>(deps_.size()));
  return id;
}

OpId Schedule::add_transfer(NodeId src, NodeId dst, Bytes bytes, std::initializer_list<OpId> deps) {
  return add(ScheduleOp{OpKind::transfer, src, dst, bytes}, deps.begin(), deps.end());
}

OpId Schedule::add_transfer(NodeId src, NodeId dst, Bytes bytes, const std::vector<OpId>& deps) {
  return add(ScheduleOp{OpKind::transfer, src, dst, bytes}, deps.data(), deps.data() + deps.size());
}

OpId Schedule::add_reduce(NodeId device, Bytes bytes, std::initializer_list<OpId> deps) {
  return add(ScheduleOp{OpKind::reduce, device, device, bytes}, deps.begin(), deps.end());
}

OpId Schedule::add_join(const std::vector<OpId>& deps) {
  return add(ScheduleOp{OpKind::join, 0, 0, 0}, deps.data(), deps.data() + deps.size());
}

void Schedule::add_dependency(OpId op, OpId dependency) {
  if (op >= ops_.size() || dependency >= ops_.size() || op == dependency) {
    throw std::logic_error("schedule: a dependency must join two different ops of the schedule");
  }
  added_.emplace_back(op, dependency);
}

void Schedule::finalize() {
  if (!added_.empty()) {
    std::vector<std::uint32_t> count(ops_.size() + 1, 0);
    for (OpId id = 0; id < ops_.size(); ++id) count[id + 1] = dep_begin_[id + 1] - dep_begin_[id];
    for (const auto& [op, dependency] : added_) ++count[op + 1];
    for (std::size_t i = 0; i < ops_.size(); ++i) count[i + 1] += count[i];
    std::vector<OpId> merged(count.back());
    std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
    for (OpId id = 0; id < ops_.size(); ++id) {
      for (auto i = dep_begin_[id]; i < dep_begin_[id + 1]; ++i) merged[fill[id]++] = deps_[i];
    }
    for (const auto& [op, dependency] : added_) merged[fill[op]++] = dependency;
    dep_begin_ = std::move(count);
    deps_ = std::move(merged);
    added_.clear();
  }
  succ_begin_.assign(ops_.size() + 1, 0);
  for (const OpId dep : deps_) ++succ_begin_[dep + 1];
  for (std::size_t i = 0; i < ops_.size(); ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.assign(deps_.size(), 0);
  std::vector<std::uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (OpId id = 0; id < ops_.size(); ++id) {
    for (auto i = dep_begin_[id]; i < dep_begin_[id + 1]; ++i) succ_[fill[deps_[i]]++] = id;
  }
  // Kahn's walk: every op must become ready.
  std::vector<std::uint32_t> waiting(ops_.size());
  std::vector<OpId> ready;
  for (OpId id = 0; id < ops_.size(); ++id) {
    waiting[id] = dependency_count(id);
    if (waiting[id] == 0) ready.push_back(id);
  }
  std::size_t reached = 0;
  while (!ready.empty()) {
    const OpId id = ready.back();
    ready.pop_back();
    ++reached;
    for (const OpId* next = successors_begin(id); next != successors_end(id); ++next) {
      if (--waiting[*next] == 0) ready.push_back(*next);
    }
  }
  if (reached != ops_.size()) throw std::logic_error("schedule: its dependencies form a cycle");
}

Bytes Schedule::bytes_sent_by(NodeId node) const {
  Bytes total = 0;
  for (const auto& op : ops_) {
    if (op.kind == OpKind::transfer && op.src == node) total += op.bytes;
  }
  return total;
}

Bytes Schedule::bytes_received_by(NodeId node) const {
  Bytes total = 0;
  for (const auto& op : ops_) {
    if (op.kind == OpKind::transfer && op.dst == node) total += op.bytes;
  }
  return total;
}

Bytes Schedule::bytes_reduced_by(NodeId node) const {
  Bytes total = 0;
  for (const auto& op : ops_) {
    if (op.kind == OpKind::reduce && op.src == node) total += op.bytes;
  }
  return total;
}

std::uint64_t Schedule::transfers() const {
  std::uint64_t count = 0;
  for (const auto& op : ops_) count += op.kind == OpKind::transfer ? 1 : 0;
  return count;
}

}  // namespace roofsim::net
