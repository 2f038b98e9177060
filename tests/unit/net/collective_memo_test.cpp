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
  return Topology(two_level_cluster(8, 4, 1));
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

// The same issues played by a core that simulates every collective and one that memoizes them (with `watched`
// links): what each left behind, and the memoizing core's counts.
struct BothWays {
  Outcome simulated, memoized;
  std::uint64_t simulated_events = 0, memoized_events = 0, replayed = 0, resumed = 0;
};
BothWays play_both_ways(const Topology& topology, const std::vector<Issue>& issues,
                        const std::vector<LinkId>& watched = {}) {
  NetworkCore simulated(topology, options(false));
  NetworkCore memoized(topology, options(true));
  for (const LinkId link : watched) memoized.watch(link);
  BothWays both;
  both.simulated = play(topology, simulated, issues);
  both.memoized = play(topology, memoized, issues);
  both.simulated_events = simulated.events();
  both.memoized_events = memoized.events();
  both.replayed = memoized.replayed();
  both.resumed = memoized.resumed();
  return both;
}

TimeFs alone_fs(const Topology& topology, const CollectiveRequest& request) {
  NetworkCore core(topology, options(false));
  const auto id = core.issue(request, 0);
  (void)core.run();
  return core.finish_fs(id);
}

// An allreduce of `bytes` on each node's four devices, and the time one takes alone.
struct TwoNodes {
  Topology topology;
  CollectiveRequest low, high;
  TimeFs once;
  explicit TwoNodes(Bytes bytes)
      : topology(two_nodes()),
        low(group_allreduce({0, 1, 2, 3}, bytes)),
        high(group_allreduce({4, 5, 6, 7}, bytes)),
        once(alone_fs(topology, low)) {}
};

}  // namespace

TEST_CASE("allreduces on nodes of their own replay what simulating them gives, with fewer events") {
  const TwoNodes nodes(Bytes{24} << 20);
  const auto& [topology, low, high, once] = nodes;
  // Both nodes at once (each records, for neither has a record yet), then one after the other, then both again.
  const std::vector<Issue> issues{{0, low},         {0, high},        {2 * once, low},
                                  {4 * once, high}, {6 * once, high}, {6 * once, low}};
  const BothWays both = play_both_ways(topology, issues);
  CHECK(both.memoized == both.simulated);
  CHECK(both.replayed == 4);
  CHECK(both.resumed == 0);
  CHECK(both.memoized_events * 2 < both.simulated_events);
  for (const auto& [start, finish] : both.memoized.collectives) CHECK(finish - start == once);
}

TEST_CASE("a replay that another collective reaches goes on simulated, and both end as if simulated throughout") {
  const TwoNodes nodes(Bytes{24} << 20);
  const auto& [topology, low, high, once] = nodes;
  for (const TimeFs into : {TimeFs{0}, once / 3, once - 1, once}) {
    CAPTURE(into);
    // A recorded, then B replayed; a pair of B's devices starts an allreduce of its own `into` after B started.
    const std::vector<Issue> issues{
        {0, low}, {2 * once, high}, {2 * once + into, group_allreduce({5, 6}, Bytes{4} << 20)}};
    const BothWays both = play_both_ways(topology, issues);
    CHECK(both.memoized == both.simulated);
    CHECK(both.replayed == 1);
    // Reached before its end, the replay goes on simulated; reached at its end, it has finished.
    CHECK(both.resumed == (into < once ? 1 : 0));
    // A third of the way in, the two share links: B takes longer than alone.
    const auto& [start, finish] = both.memoized.collectives[1];
    if (into == once / 3) CHECK(finish - start > once);
  }
}

TEST_CASE("a collective crossing a watched link, or starting on a busy one, is simulated") {
  const TwoNodes nodes(Bytes{8} << 20);
  const auto& [topology, low, high, once] = nodes;
  const BothWays watched =
      play_both_ways(topology, {{0, low}, {2 * once, high}, {4 * once, high}}, {topology.route(4, 5)[0]});
  CHECK(watched.memoized == watched.simulated);
  CHECK(watched.replayed == 0);

  // The same allreduce twice at once on one node: the second finds the first on its links, and neither records.
  const BothWays twice = play_both_ways(topology, {{0, low}, {0, low}, {4 * once, low}});
  CHECK(twice.memoized == twice.simulated);
  CHECK(twice.replayed == 0);
}

TEST_CASE("a footprint's key matches where the schedules and the links they cross match, and only there") {
  const Topology topology = two_nodes();
  CollectiveMemo memo(topology);
  const auto key = [&](const CollectiveRequest& request) {
    CollectiveFootprint footprint;
    memo.footprint_of(build_schedule(request), footprint);
    return footprint;
  };
  const auto low = key(group_allreduce({0, 1, 2, 3}, Bytes{8} << 20));
  const auto high = key(group_allreduce({4, 5, 6, 7}, Bytes{8} << 20));
  CHECK(low.key == high.key);
  CHECK(low.links.size() == 8);  // each device's link to its node's switch and back
  CHECK(low.reducers.size() == 4);
  CHECK(low.links != high.links);
  CHECK(key(group_allreduce({0, 1, 2, 3}, Bytes{4} << 20)).key != low.key);
  // Across the nodes the ring crosses NICs and the leaf: other links, other parameters.
  CHECK(key(group_allreduce({0, 4, 1, 5}, Bytes{8} << 20)).key != low.key);
}
