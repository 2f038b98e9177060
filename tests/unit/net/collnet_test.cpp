// CollNet Direct on a two-level cluster whose fabric switches reduce (SHARP), against its closed form.
#include <doctest/doctest.h>

#include "models/net/alpha_beta.h"
#include "models/net/protocol.h"
#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

namespace {

constexpr double kNvlink = 100e9;
constexpr double kHost = 50e9;
constexpr double kNic = 25e9;
constexpr Seconds kLatency = 0.5e-6;

// Two nodes of 4 devices, one NIC per device on its own rail, every rail on one leaf.
ClusterParams two_nodes() {
  ClusterParams cluster = make_cluster(TopologyKind::two_level, 8, make_link(kNvlink, kLatency));
  cluster.devices_per_node = 4;
  cluster.nics_per_node = 4;
  cluster.rail_optimized = true;
  cluster.leaf_ports = 20;
  cluster.host_link = make_link(kHost, kLatency);
  cluster.nic_link = make_link(kNic, kLatency);
  cluster.fabric_link = cluster.nic_link;
  return cluster;
}

}  // namespace

TEST_CASE("every rail's aggregation switch is its leaf, on the routes of the rail's devices") {
  const Topology topology(two_nodes());
  const auto switches = aggregation_switches(topology);
  REQUIRE(switches.size() == 4);
  for (NodeId d = 0; d < 4; ++d) {
    CHECK(topology.node_kind(switches[d]) == NodeKind::switch_node);
    CHECK(topology.route(d, switches[d]).size() == 2);  // host link, NIC link
  }
  CHECK(switches[0] != switches[1]);
  CHECK(
      aggregation_switches(Topology(make_cluster(TopologyKind::switch_star, 8, make_link(kNvlink, kLatency)))).empty());
}

// One slice, one chunk per message, free reductions: the node ring's reduce-scatter is g-1 steps of S/g over two
// NVLink hops (device, switch, device), the fabric phase one message of S/g up (host link, NIC link) and one down, and
// the all-gather g-1 steps again: launch + 2(g-1) 2(L + S/g / B_nv) + 2(2L + S/g / B_host + S/g / B_nic), the
// messages crossing each link whole (one packet).
TEST_CASE("CollNet allreduce on 2 nodes: node reduce-scatter, one trip through the leaf, node all-gather, exactly") {
  const Topology topology(two_nodes());
  const Bytes bytes = 4 * 16384;
  auto request = make_request(CollectiveOp::allreduce, Algorithm::collnet, bytes, topology, bytes);
  CHECK(!unsupported_reason(request).empty());  // no aggregation switches given
  request.aggregation_switches = aggregation_switches(topology);
  CHECK(unsupported_reason(request).empty());
  NetworkOptions options;
  options.packet_bytes = bytes;
  options.protocol = protocol_cost(Protocol::simple, Algorithm::collnet);
  const double g = 4;
  const double shard = static_cast<double>(bytes) / g;
  const double node_step = 2 * (kLatency + shard / kNvlink);
  const double fabric_way = 2 * kLatency + shard / kHost + shard / kNic;
  const double expected = options.protocol.launch_s + 2 * (g - 1) * node_step + 2 * fabric_way;
  CHECK(within(run_collective(topology, request, options).time_s, expected, 1e-9));
  CHECK(within(predict(request, topology, options).time_s, expected, 1e-9));
  CHECK(!protocol_supported(Protocol::ll, Algorithm::collnet));
}

// The switch's engines bound the fabric phase: each chunk's reduction takes the nodes' copies at the key's rate.
TEST_CASE("the fabric switch's aggregation throughput bounds CollNet, and a very high one changes nothing") {
  const Topology topology(two_nodes());
  const Bytes bytes = Bytes{64} << 20;
  auto request = make_request(CollectiveOp::allreduce, Algorithm::collnet, bytes, topology, Bytes{1} << 20);
  request.aggregation_switches = aggregation_switches(topology);
  NetworkOptions options;
  options.protocol = protocol_cost(Protocol::simple, Algorithm::collnet);
  const Seconds free_s = run_collective(topology, request, options).time_s;
  options.switch_reduction = ReductionModel::per_byte(1.0 / 1e15);
  CHECK(within(run_collective(topology, request, options).time_s, free_s, 1e-3));
  // 2 nodes' copies of every byte at 5 GB/s: the fabric phase of each device's S/g takes 2 S/g / 5 GB/s at least.
  options.switch_reduction = ReductionModel::per_byte(1.0 / 5e9);
  CHECK(run_collective(topology, request, options).time_s > 2.0 * static_cast<double>(bytes) / 4.0 / 5e9);
}
