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

void Schedule::finalize() {
  succ_begin_.assign(ops_.size() + 1, 0);
  for (const OpId dep : deps_) ++succ_begin_[dep + 1];
  for (std::size_t i = 0; i < ops_.size(); ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.assign(deps_.size(), 0);
  std::vector<std::uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (OpId id = 0; id < ops_.size(); ++id) {
    for (auto i = dep_begin_[id]; i < dep_begin_[id + 1]; ++i) succ_[fill[deps_[i]]++] = id;
  }
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
