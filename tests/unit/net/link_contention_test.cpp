// FIFO links with a busy-until time: flows that share a link share its bandwidth.
#include <doctest/doctest.h>

#include <memory>

#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

TEST_CASE("two flows sharing a link each get half its bandwidth") {
  // Devices 0 and 1 both send to device 2 through a switch: the switch-to-2 link is shared.
  const double bandwidth = 50e9;
  const Topology topology(make_cluster(TopologyKind::switch_star, 3, make_link(bandwidth, 1e-6)));
  const Bytes chunk = 1 << 20;
  const std::size_t chunks = 256;
  NetworkOptions options;
  NetworkCore core(topology, options);
  std::vector<CollectiveId> flows;
  for (const NodeId source : {NodeId{0}, NodeId{1}}) {
    auto schedule = std::make_shared<Schedule>();
    // All chunks are queued at the sender at once, as in a DMA queue; each crosses the links as a message.
    for (std::size_t j = 0; j < chunks; ++j) schedule->add_transfer(source, 2, chunk);
    schedule->finalize();
    flows.push_back(core.issue(schedule, 0));
  }
  (void)core.run();
  const double alone_s = static_cast<double>(chunk * chunks) / bandwidth;
  for (const auto flow : flows) {
    const double rate = static_cast<double>(chunk * chunks) / to_seconds(core.finish_fs(flow));
    CHECK(within(rate, (bandwidth / 2), 0.02));
  }
  CHECK(to_seconds(core.finish_fs(flows[0])) > 1.9 * alone_s);
}

TEST_CASE("link statistics and reservations: a lone message occupies each link for overhead + bytes / bandwidth") {
  const Topology topology(make_cluster(TopologyKind::switch_star, 2, make_link(50e9, 1e-6, 0.25e-6)));
  NetworkCore core(topology, NetworkOptions{});
  std::vector<LinkReservation> reservations;
  core.on_reservation([&](const LinkReservation& reservation) { reservations.push_back(reservation); });
  auto schedule = std::make_shared<Schedule>();
  schedule->add_transfer(0, 1, 1 << 20);
  schedule->finalize();
  const auto id = core.issue(schedule, 0);
  (void)core.run();
  REQUIRE(reservations.size() == 2);
  const TimeFs occupancy = to_fs(0.25e-6) + serialisation_fs(1 << 20, 50e9);
  CHECK(reservations[0].begin_fs == 0);
  CHECK(reservations[0].end_fs == occupancy);
  CHECK(core.link_stats(reservations[1].link).busy_fs == occupancy);
  CHECK(core.link_stats(reservations[1].link).bytes == Bytes{1} << 20);
  // Store and forward per 64 KiB packet: the second link starts one packet (plus overhead and latency) later.
  CHECK(reservations[1].begin_fs == to_fs(0.25e-6) + serialisation_fs(64 << 10, 50e9) + to_fs(1e-6));
  CHECK(core.finish_fs(id) == reservations[1].end_fs + to_fs(1e-6));
}
