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
