#include "models/net/collective_memo.h"

#include <algorithm>
#include <cstring>

namespace roofsim::net {

namespace {
template <typename T>
void append(std::string& key, const T& value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key.append(bytes, sizeof(T));
}
}  // namespace

CollectiveMemo::CollectiveMemo(const Topology& topology)
    : topology_(&topology), link_index_(topology.link_count(), kNone), vertex_index_(topology.node_count(), kNone) {}

void CollectiveMemo::footprint_of(const Schedule& schedule, CollectiveFootprint& footprint) {
  auto& key = footprint.key;
  key.clear();
  footprint.links.clear();
  footprint.reducers.clear();
  append(key, static_cast<std::uint64_t>(schedule.size()));
  for (OpId id = 0; id < schedule.size(); ++id) {
    const ScheduleOp& op = schedule.op(id);
    append(key, op.kind);
    append(key, op.bytes);
    append(key, schedule.dependency_count(id));
    for (const OpId* dep = schedule.dependencies_begin(id); dep != schedule.dependencies_end(id); ++dep) {
      append(key, *dep);
    }
    if (op.kind == OpKind::transfer) {
      const auto& route = topology_->route(op.src, op.dst);
      append(key, static_cast<std::uint32_t>(route.size()));
      for (const LinkId link : route) {
        auto& index = link_index_[link];
        if (index == kNone) {
          // A link's first use names what the core plays it with: its payload rate, per-message overhead and
          // latency, and whether it leaves a NIC (the protocol's step latency is the network's then).
          index = static_cast<std::uint32_t>(footprint.links.size());
          footprint.links.push_back(link);
          const auto& params = topology_->link(link).params;
          append(key, kNone);
          append(key, params.payload_bandwidth_bytes_per_s());
          append(key, to_fs(params.overhead_s));
          append(key, to_fs(params.latency_s));
          append(key, topology_->node_kind(topology_->link(link).from) == NodeKind::nic);
        } else {
          append(key, index);
        }
      }
    } else if (op.kind == OpKind::reduce) {
      auto& index = vertex_index_[op.src];
      if (index == kNone) {
        index = static_cast<std::uint32_t>(footprint.reducers.size());
        footprint.reducers.push_back(op.src);
        append(key, kNone);
        append(key, topology_->node_kind(op.src) == NodeKind::device);
      } else {
        append(key, index);
      }
    }
  }
  for (const LinkId link : footprint.links) link_index_[link] = kNone;
  for (const NodeId vertex : footprint.reducers) vertex_index_[vertex] = kNone;
}

std::unique_ptr<CollectiveRecord> CollectiveMemo::make_record(const CollectiveFootprint& footprint, TimeFs start_fs,
                                                              TimeFs finish_fs,
                                                              const std::vector<LinkReservation>& reservations,
                                                              const std::vector<Reduction>& reductions) {
  auto record = std::make_unique<CollectiveRecord>();
  record->duration_fs = finish_fs - start_fs;
  for (std::uint32_t i = 0; i < footprint.links.size(); ++i) link_index_[footprint.links[i]] = i;
  for (std::uint32_t i = 0; i < footprint.reducers.size(); ++i) vertex_index_[footprint.reducers[i]] = i;
  record->reservations.reserve(reservations.size());
  for (const auto& r : reservations) {
    record->reservations.push_back(
        RecordedReservation{link_index_[r.link], r.op, r.begin_fs - start_fs, r.end_fs - start_fs, r.bytes});
  }
  for (const auto& r : reductions) {
    record->reductions.push_back(CollectiveRecord::Reduction{vertex_index_[r.reducer], r.busy_until_fs - start_fs});
  }
  for (const LinkId link : footprint.links) link_index_[link] = kNone;
  for (const NodeId vertex : footprint.reducers) vertex_index_[vertex] = kNone;
  return record;
}

}  // namespace roofsim::net
