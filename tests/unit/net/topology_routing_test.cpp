// Topologies as graphs and their shortest routes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>

#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

TEST_CASE("ring, fully connected and switch: link counts and route lengths") {
  const auto link = make_link(100e9, 1e-6);
  const Topology ring(make_cluster(TopologyKind::ring, 8, link));
  CHECK(ring.link_count() == 16);  // 8 links, 2 directions each
  CHECK(ring.route(0, 1).size() == 1);
  CHECK(ring.route(0, 4).size() == 4);
  CHECK(ring.route(0, 7).size() == 1);  // the ring closes
  const Topology full(make_cluster(TopologyKind::fully_connected, 8, link));
  CHECK(full.link_count() == 8 * 7);
  CHECK(full.route(2, 6).size() == 1);
  const Topology star(make_cluster(TopologyKind::switch_star, 8, link));
  CHECK(star.link_count() == 16);
  CHECK(star.route(3, 5).size() == 2);
  CHECK(star.route(3, 3).empty());
}

TEST_CASE("torus: routes take the shorter way round each dimension, and the snake ring is one hop per step") {
  ClusterParams cluster = make_cluster(TopologyKind::torus, 256, make_link(50e9, 1e-6));
  cluster.dims = {16, 16};
  const Topology torus(cluster);
  CHECK(torus.link_count() == 256 * 2 * 2);  // 2 links per device (one per dimension), 2 directions each
  const auto at = [](int x, int y) { return static_cast<NodeId>(x + 16 * y); };
  CHECK(torus.route(at(0, 0), at(15, 0)).size() == 1);
  CHECK(torus.route(at(0, 0), at(8, 8)).size() == 16);
  CHECK(torus.route(at(2, 3), at(5, 14)).size() == 3 + 5);
  const auto order = torus.ring_order();
  CHECK(std::set<NodeId>(order.begin(), order.end()).size() == 256);
  for (std::size_t i = 0; i < order.size(); ++i) {
    CHECK(torus.route(order[i], order[(i + 1) % order.size()]).size() == 1);
  }
}

TEST_CASE("two-level: same-node routes stay on the node switch, and cross-node routes use NICs and the fat tree") {
  ClusterParams cluster = make_cluster(TopologyKind::two_level, 64, make_link(450e9, 0.5e-6));
  cluster.devices_per_node = 8;
  cluster.nics_per_node = 8;
  cluster.leaf_ports = 16;  // 64 NICs: 4 leaves, 16 spines
  cluster.host_link = make_link(63e9, 0.5e-6);
  cluster.nic_link = make_link(50e9, 1e-6);
  cluster.fabric_link = make_link(50e9, 0.5e-6);
  const Topology topology(cluster);
  CHECK(topology.route(0, 7).size() == 2);
  CHECK(topology.route(0, 9).size() == 4);   // device, NIC, leaf (NICs 0-15 share it), NIC, device
  CHECK(topology.route(0, 63).size() == 6);  // through a spine
  CHECK(topology.levels() == std::vector<std::uint64_t>{8, 8});
  // d-mod-k: flows from one leaf to different destinations spread over different spines.
  std::set<LinkId> uplinks;
  for (NodeId destination = 32; destination < 48; ++destination) uplinks.insert(topology.route(0, destination)[2]);
  CHECK(uplinks.size() == 16);
}
