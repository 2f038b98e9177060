#pragma once
// Small clusters built in memory for the network tests (no device file needed: the topology reads only links).
#include <cmath>
#include <vector>

#include "models/net/algorithm_choice.h"
#include "models/net/collectives.h"
#include "models/net/network_core.h"
#include "models/net/topology.h"
#include "sim/config/cluster_params.h"
#include "tests/support/relative.h"

namespace roofsim::net::test {

using roofsim::test::within;

inline LinkParams make_link(double bandwidth_bytes_per_s, Seconds latency_s, Seconds overhead_s = 0) {
  return LinkParams{bandwidth_bytes_per_s, latency_s, overhead_s};
}

inline ClusterParams make_cluster(TopologyKind kind, std::uint64_t devices, LinkParams link) {
  ClusterParams cluster;
  cluster.name = "test";
  cluster.devices = devices;
  cluster.topology = kind;
  cluster.link = link;
  return cluster;
}

// Nodes of `devices_per_node` devices on NVLink-class links to a switch, each node's `nics_per_node` NICs on one
// leaf (PCIe to the NIC, 50 GB/s with 1 us of per-message overhead beyond it).
inline ClusterParams two_level_cluster(std::uint64_t devices, std::uint64_t devices_per_node,
                                       std::uint64_t nics_per_node) {
  ClusterParams cluster = make_cluster(TopologyKind::two_level, devices, make_link(450e9, 0.5e-6));
  cluster.devices_per_node = devices_per_node;
  cluster.nics_per_node = nics_per_node;
  cluster.leaf_ports = 32;
  cluster.host_link = make_link(63e9, 0.5e-6);
  cluster.nic_link = make_link(50e9, 1e-6, 1e-6);
  cluster.fabric_link = cluster.nic_link;
  return cluster;
}

// A ring allreduce of `bytes` on a group of ranks, in 1 MiB chunks.
inline CollectiveRequest group_allreduce(std::vector<NodeId> group, Bytes bytes) {
  CollectiveRequest request;
  request.op = CollectiveOp::allreduce;
  request.algorithm = Algorithm::ring;
  request.bytes = bytes;
  request.ranks = std::move(group);
  request.chunk_bytes = 1 << 20;
  return request;
}

inline std::vector<NodeId> natural_ranks(std::uint32_t devices) {
  std::vector<NodeId> ranks;
  for (NodeId d = 0; d < devices; ++d) ranks.push_back(d);
  return ranks;
}

inline CollectiveRequest make_request(CollectiveOp op, Algorithm algorithm, Bytes bytes, const Topology& topology,
                                      Bytes chunk_bytes) {
  CollectiveRequest request;
  request.op = op;
  request.algorithm = algorithm;
  request.bytes = bytes;
  request.ranks = ranks_for(algorithm, topology);
  request.chunk_bytes = chunk_bytes;
  request.levels = topology.levels();
  if (topology.in_switch_reduction()) request.switch_node = topology.switch_node();
  return request;
}

inline Seconds simulate(const Topology& topology, const CollectiveRequest& request, Seconds gamma = 0,
                        Bytes packet_bytes = 64 * 1024) {
  NetworkOptions options;
  options.packet_bytes = packet_bytes;
  options.reduction = ReductionModel::per_byte(gamma);
  return run_collective(topology, request, options).time_s;
}

}  // namespace roofsim::net::test
