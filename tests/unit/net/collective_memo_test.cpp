// A collective replayed from a record takes the time, leaves the links and reports the reservations that simulating
// it gives, on links it has to itself; when another collective reaches them before it ends, it goes on simulated
// from the state it had reached, and the two meet as they would have had neither been replayed.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <tuple>

#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

namespace {

// Two nodes of four devices on a switch each, joined by one NIC per node.
Topology two_nodes() {
  ClusterParams cluster = make_cluster(TopologyKind::two_level, 8, make_link(450e9, 0.5e-6));
  cluster.devices_per_node = 4;
  cluster.nics_per_node = 1;
  cluster.leaf_ports = 32;
  cluster.host_link = make_link(63e9, 0.5e-6);
  cluster.nic_link = make_link(50e9, 1e-6, 1e-6);
  cluster.fabric_link = cluster.nic_link;
  return Topology(cluster);
}

CollectiveRequest ring_allreduce(std::vector<NodeId> group, Bytes bytes) {
  CollectiveRequest request;
  request.op = CollectiveOp::allreduce;
  request.algorithm = Algorithm::ring;
  request.bytes = bytes;
  request.ranks = std::move(group);
  request.chunk_bytes = 1 << 20;
  return request;
}

NetworkOptions options(bool memoize) {
  NetworkOptions options;
  options.memoize = memoize;
  options.reduction = ReductionModel::per_byte(1.0 / 1e12);  // reductions queue on each device
  return options;
}

// What a run leaves behind: each collective's start and finish, each link's totals and busy-until time, and each
// link's reservations in the order they were reported.
struct Outcome {
  std::vector<std::pair<TimeFs, TimeFs>> collectives;
  std::vector<std::tuple<Bytes, std::uint64_t, TimeFs>> links;
  std::map<LinkId, std::vector<std::tuple<CollectiveId, OpId, TimeFs, TimeFs, Bytes>>> reservations;
  bool operator==(const Outcome& other) const {
    return collectives == other.collectives && links == other.links && reservations == other.reservations;
  }
};

struct Issue {
  TimeFs at_fs;
  CollectiveRequest request;
};

Outcome play(const Topology& topology, NetworkCore& core, const std::vector<Issue>& issues) {
  Outcome outcome;
  core.on_reservation([&outcome](const LinkReservation& r) {
    outcome.reservations[r.link].emplace_back(r.collective, r.op, r.begin_fs, r.end_fs, r.bytes);
  });
  std::vector<CollectiveId> ids;
  for (const auto& issue : issues) {
    core.run_until(issue.at_fs);
    ids.push_back(core.issue(issue.request, issue.at_fs));
  }
  (void)core.run();
  for (const auto id : ids) {
    REQUIRE(core.finished(id));
    outcome.collectives.emplace_back(core.start_fs(id), core.finish_fs(id));
  }
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const auto& stats = core.link_stats(l);
    outcome.links.emplace_back(stats.bytes, stats.messages, stats.busy_fs);
  }
  return outcome;
}

TimeFs alone_fs(const Topology& topology, const CollectiveRequest& request) {
  NetworkCore core(topology, options(false));
  const auto id = core.issue(request, 0);
  (void)core.run();
  return core.finish_fs(id);
}

}  // namespace

TEST_CASE("allreduces on nodes of their own replay what simulating them gives, with fewer events") {
  const Topology topology = two_nodes();
  const Bytes bytes = Bytes{24} << 20;
  const auto low = ring_allreduce({0, 1, 2, 3}, bytes);
  const auto high = ring_allreduce({4, 5, 6, 7}, bytes);
  const TimeFs once = alone_fs(topology, low);
  // Both nodes at once (each records, for neither has a record yet), then one after the other, then both again.
  const std::vector<Issue> issues{{0, low},         {0, high},        {2 * once, low},
                                  {4 * once, high}, {6 * once, high}, {6 * once, low}};
  NetworkCore simulated(topology, options(false));
  NetworkCore memoized(topology, options(true));
  const Outcome expected = play(topology, simulated, issues);
  const Outcome got = play(topology, memoized, issues);
  CHECK(got == expected);
  CHECK(memoized.replayed() == 4);
  CHECK(memoized.resumed() == 0);
  CHECK(memoized.events() * 2 < simulated.events());
  for (const auto& [start, finish] : got.collectives) CHECK(finish - start == once);
}

TEST_CASE("a replay that another collective reaches goes on simulated, and both end as if simulated throughout") {
  const Topology topology = two_nodes();
  const Bytes bytes = Bytes{24} << 20;
  const auto low = ring_allreduce({0, 1, 2, 3}, bytes);
  const auto high = ring_allreduce({4, 5, 6, 7}, bytes);
  const TimeFs once = alone_fs(topology, low);
  for (const TimeFs into : {TimeFs{0}, once / 3, once - 1, once}) {
    CAPTURE(into);
    // A recorded, then B replayed; a pair of B's devices starts an allreduce of its own `into` after B started.
    const std::vector<Issue> issues{
        {0, low}, {2 * once, high}, {2 * once + into, ring_allreduce({5, 6}, Bytes{4} << 20)}};
    NetworkCore simulated(topology, options(false));
    NetworkCore memoized(topology, options(true));
    const Outcome expected = play(topology, simulated, issues);
    const Outcome got = play(topology, memoized, issues);
    CHECK(got == expected);
    CHECK(memoized.replayed() == 1);
    // Reached before its end, the replay goes on simulated; reached at its end, it has finished.
    CHECK(memoized.resumed() == (into < once ? 1 : 0));
    // A third of the way in, the two share links: B takes longer than alone.
    if (into == once / 3) CHECK(got.collectives[1].second - got.collectives[1].first > once);
  }
}

TEST_CASE("a collective crossing a watched link, or starting on a busy one, is simulated") {
  const Topology topology = two_nodes();
  const Bytes bytes = Bytes{8} << 20;
  const auto low = ring_allreduce({0, 1, 2, 3}, bytes);
  const auto high = ring_allreduce({4, 5, 6, 7}, bytes);
  const TimeFs once = alone_fs(topology, low);
  const std::vector<Issue> issues{{0, low}, {2 * once, high}, {4 * once, high}};
  NetworkCore simulated(topology, options(false));
  NetworkCore memoized(topology, options(true));
  memoized.watch(topology.route(4, 5)[0]);
  CHECK(play(topology, memoized, issues) == play(topology, simulated, issues));
  CHECK(memoized.replayed() == 0);

  // The same allreduce twice at once on one node: the second finds the first on its links.
  NetworkCore together(topology, options(true));
  const std::vector<Issue> twice{{0, low}, {0, low}, {4 * once, low}};
  NetworkCore apart(topology, options(false));
  CHECK(play(topology, together, twice) == play(topology, apart, twice));
  CHECK(together.replayed() == 0);
}

TEST_CASE("a footprint's key matches where the schedules and the links they cross match, and only there") {
  const Topology topology = two_nodes();
  CollectiveMemo memo(topology);
  const auto key = [&](const CollectiveRequest& request) {
    CollectiveFootprint footprint;
    memo.footprint_of(build_schedule(request), footprint);
    return footprint;
  };
  const auto low = key(ring_allreduce({0, 1, 2, 3}, Bytes{8} << 20));
  const auto high = key(ring_allreduce({4, 5, 6, 7}, Bytes{8} << 20));
  CHECK(low.key == high.key);
  CHECK(low.links.size() == 8);  // each device's link to its node's switch and back
  CHECK(low.reducers.size() == 4);
  CHECK(low.links != high.links);
  CHECK(key(ring_allreduce({0, 1, 2, 3}, Bytes{4} << 20)).key != low.key);
  // Across the nodes the ring crosses NICs and the leaf: other links, other parameters.
  CHECK(key(ring_allreduce({0, 4, 1, 5}, Bytes{8} << 20)).key != low.key);
}
