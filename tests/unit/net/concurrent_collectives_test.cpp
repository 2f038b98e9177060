// Collectives issued at once on groups of ranks share the links they have in common, and only those.
#include <doctest/doctest.h>

#include <memory>

#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

TEST_CASE("two allreduces on the same ring take twice as long, and on disjoint halves of a switch, as long as alone") {
  const Bytes bytes = Bytes{256} << 20;
  {
    const Topology ring(make_cluster(TopologyKind::ring, 4, make_link(100e9, 1e-6)));
    const auto request = group_allreduce({0, 1, 2, 3}, bytes);
    const double alone_s = simulate(ring, request);
    NetworkCore core(ring, NetworkOptions{});
    const auto first = core.issue(request, 0);
    const auto second = core.issue(request, 0);
    (void)core.run();
    const double last_s = to_seconds(std::max(core.finish_fs(first), core.finish_fs(second)));
    CHECK(within(last_s / alone_s, 2.0, 0.02));
  }
  {
    const Topology star(make_cluster(TopologyKind::switch_star, 8, make_link(100e9, 1e-6)));
    const auto low = group_allreduce({0, 1, 2, 3}, bytes);
    const auto high = group_allreduce({4, 5, 6, 7}, bytes);
    const double alone_s = simulate(star, low);
    NetworkCore core(star, NetworkOptions{});
    const auto a = core.issue(low, 0);
    const auto b = core.issue(high, 1000);
    (void)core.run();
    CHECK(within(to_seconds(core.finish_fs(a)), alone_s, 1e-9));
    CHECK(within(to_seconds(core.finish_fs(b) - core.start_fs(b)), alone_s, 1e-9));
  }
}

TEST_CASE("two-level topology: NICs shared by several devices of a node") {
  ClusterParams cluster = make_cluster(TopologyKind::two_level, 16, make_link(450e9, 0.5e-6));
  cluster.devices_per_node = 8;
  cluster.nics_per_node = 2;
  cluster.leaf_ports = 32;
  cluster.host_link = make_link(63e9, 0.5e-6);
  cluster.nic_link = make_link(50e9, 1e-6);
  cluster.fabric_link = cluster.nic_link;
  const Topology topology(cluster);
  // Devices 0, 2, 4, 6 use NIC 0 of node 0; their routes to node 1 leave through the same NIC-to-leaf link.
  const auto nic_uplink = topology.route(0, 8)[1];
  for (const NodeId device : {NodeId{2}, NodeId{4}, NodeId{6}}) CHECK(topology.route(device, 8)[1] == nic_uplink);
  CHECK(topology.route(1, 8)[1] != nic_uplink);
}

TEST_CASE("a finished collective's schedule is released while the network goes on with the others") {
  const Topology ring(make_cluster(TopologyKind::ring, 4, make_link(100e9, 1e-6)));
  NetworkCore core(ring, NetworkOptions{});
  auto small = std::make_shared<const Schedule>(build_schedule(group_allreduce({0, 1, 2, 3}, Bytes{1} << 20)));
  auto large = std::make_shared<const Schedule>(build_schedule(group_allreduce({0, 1, 2, 3}, Bytes{64} << 20)));
  const std::weak_ptr<const Schedule> small_held = small, large_held = large;
  const auto first = core.issue(std::move(small), 0);
  const auto second = core.issue(std::move(large), 0);
  while (!core.finished(first)) core.run_until(*core.next_event_fs());
  CHECK(small_held.expired());
  CHECK_FALSE(core.finished(second));
  CHECK_FALSE(large_held.expired());
  (void)core.run();
  CHECK(large_held.expired());
  CHECK(core.finish_fs(second) > core.finish_fs(first));
}
