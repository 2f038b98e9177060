// Simulated collectives against their closed forms (Thakur, Rabenseifner, Gropp 2005) on topologies where the
// formula's assumptions hold: one hop per message, no other traffic.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "models/net/alpha_beta.h"
#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

namespace {
constexpr double kBandwidth = 100e9;  // B/s per direction
constexpr Seconds kLatency = 2e-6;
constexpr Bytes kLarge = Bytes{1} << 30;
}  // namespace

TEST_CASE("ring allreduce, free reduction: within 2% of 2(p-1)a + 2(p-1)/p S b at large S") {
  for (const std::uint64_t p : {2, 4, 8}) {
    const Topology topology(make_cluster(TopologyKind::ring, p, make_link(kBandwidth, kLatency)));
    auto request = make_request(CollectiveOp::allreduce, Algorithm::ring, kLarge, topology, kLarge);
    const double pd = static_cast<double>(p);
    const double formula = 2 * (pd - 1) * kLatency + 2 * (pd - 1) / pd * static_cast<double>(kLarge) / kBandwidth;
    const double simulated = simulate(topology, request);
    CAPTURE(p);
    CHECK(std::abs(simulated / formula - 1) < 0.02);
    CHECK(within(predict(request, topology, 0).time_s, formula, 1e-9));
  }
}

TEST_CASE("ring allreduce at small S is dominated by the alpha term") {
  const std::uint64_t p = 8;
  const Topology topology(make_cluster(TopologyKind::ring, p, make_link(kBandwidth, kLatency, 0.5e-6)));
  auto request = make_request(CollectiveOp::allreduce, Algorithm::ring, 1024, topology, kLarge);
  const double alpha_term = 2.0 * (p - 1) * (kLatency + 0.5e-6);
  const double simulated = simulate(topology, request);
  CHECK(simulated >= alpha_term);
  CHECK(simulated < alpha_term * 1.01);
}

TEST_CASE("ring allreduce with a reduction cost lies between the gamma-free time and the formula with gamma") {
  const std::uint64_t p = 8;
  const Topology topology(make_cluster(TopologyKind::ring, p, make_link(kBandwidth, kLatency)));
  const double pd = static_cast<double>(p);
  const double s = static_cast<double>(kLarge);
  const double free_formula = 2 * (pd - 1) * kLatency + 2 * (pd - 1) / pd * s / kBandwidth;
  auto whole = make_request(CollectiveOp::allreduce, Algorithm::ring, kLarge, topology, kLarge);
  auto chunked = make_request(CollectiveOp::allreduce, Algorithm::ring, kLarge, topology, 4 << 20);
  const double chunked_free = simulate(topology, chunked, 0);
  CHECK(within(chunked_free, free_formula, 0.02));
  // Reducing a byte costs half, then twice, the time of sending it.
  for (const double gamma : {0.5 / kBandwidth, 2.0 / kBandwidth}) {
    const double gamma_formula = free_formula + (pd - 1) / pd * s * gamma;
    CAPTURE(gamma);
    // Unchunked: each reduction is on the critical path, so the formula with gamma is exact.
    CHECK(within(simulate(topology, whole, gamma), gamma_formula, 0.02));
    CHECK(within(predict(whole, topology, gamma).time_s, gamma_formula, 1e-9));
    // Chunked: the reduction of chunk j overlaps the transfer of chunk j+1, so the time falls between the same
    // schedule without reduction cost (fully hidden when reducing is faster than sending) and the formula.
    const double overlapped = simulate(topology, chunked, gamma);
    CHECK(overlapped >= chunked_free);
    CHECK(overlapped < gamma_formula);
  }
}

TEST_CASE("recursive halving-doubling allreduce: 2 log p a + 2(p-1)/p S b + (p-1)/p S g") {
  const std::uint64_t p = 8;
  const Topology topology(make_cluster(TopologyKind::fully_connected, p, make_link(kBandwidth, kLatency)));
  const double gamma = 0.25 / kBandwidth;
  for (const Bytes bytes : {Bytes{8} << 10, kLarge}) {
    auto request = make_request(CollectiveOp::allreduce, Algorithm::halving_doubling, bytes, topology, kLarge);
    const double s = static_cast<double>(bytes);
    const double formula = 2 * 3 * kLatency + 2 * 7.0 / 8 * s / kBandwidth + 7.0 / 8 * s * gamma;
    CAPTURE(bytes);
    CHECK(within(simulate(topology, request, gamma), formula, 0.02));
    CHECK(within(predict(request, topology, gamma).time_s, formula, 1e-9));
  }
}

TEST_CASE("direct allreduce on a fully connected topology: 2(a + S/p b) + (p-1)/p S g") {
  const std::uint64_t p = 8;
  const Topology topology(make_cluster(TopologyKind::fully_connected, p, make_link(kBandwidth, kLatency)));
  const double gamma = 0.1 / kBandwidth;
  auto request = make_request(CollectiveOp::allreduce, Algorithm::direct, kLarge, topology, kLarge);
  const double s = static_cast<double>(kLarge);
  // Each pair has its own link: all p-1 shards of a phase travel at once; the receiver reduces p-1 shards in turn.
  const double formula = 2 * (kLatency + s / 8 / kBandwidth) + 7.0 / 8 * s * gamma;
  CHECK(within(simulate(topology, request, gamma), formula, 0.02));
  CHECK(within(predict(request, topology, gamma).time_s, formula, 1e-9));
}

TEST_CASE("double binary tree allreduce: the pipelined-tree formula with its bottleneck link") {
  for (const std::uint64_t p : {4, 8, 16}) {
    const Topology topology(make_cluster(TopologyKind::fully_connected, p, make_link(kBandwidth, kLatency)));
    const auto trees = double_binary_tree(p);
    const double height = static_cast<double>(std::max(trees[0].height(), trees[1].height()));
    // m: the most chunk streams one link direction carries. On a fully connected topology each ordered pair is its
    // own link; a tree edge carries its chunks up (child to parent) and back down (parent to child).
    std::map<std::pair<int, int>, int> streams;
    for (const auto& tree : trees) {
      for (int i = 0; i < static_cast<int>(p); ++i) {
        const int parent = tree.parent[static_cast<std::size_t>(i)];
        if (parent < 0) continue;
        ++streams[{i, parent}];
        ++streams[{parent, i}];
      }
    }
    int m = 0;
    for (const auto& entry : streams) m = std::max(m, entry.second);
    const Bytes chunk = 1 << 20;
    auto request = make_request(CollectiveOp::allreduce, Algorithm::tree, Bytes{256} << 20, topology, chunk);
    // Each tree carries half the buffer in k chunks through 2h hops (up, then down), one chunk time apart; where
    // the two trees share a link direction (m = 2), that link must pass 2k chunks and sets the pace.
    const double k = 128;
    const double c = static_cast<double>(chunk);
    const double pipeline = 2 * height * (kLatency + c / kBandwidth) + (k - 1) * c / kBandwidth;
    const double bottleneck = m * k * c / kBandwidth + 2 * height * kLatency;
    const double formula = std::max(pipeline, bottleneck);
    const auto prediction = predict(request, topology, 0);
    CAPTURE(p);
    const double simulated = simulate(topology, request);
    CHECK(within(simulated, formula, 0.02));
    CHECK(within(prediction.time_s, formula, 0.02));
    // Every route here is one link, so the prediction's schedule (a message takes its route's links when it is sent)
    // serves each link's messages in the order the simulation does: the two agree to rounding.
    CHECK(within(prediction.time_s, simulated, 1e-9));
  }
}

TEST_CASE("ring allreduce busbw approaches the link bandwidth on rings of 2, 4 and 8") {
  for (const std::uint64_t p : {2, 4, 8}) {
    const Topology topology(make_cluster(TopologyKind::ring, p, make_link(kBandwidth, 1e-6)));
    const Bytes bytes = Bytes{4} << 30;
    auto request = make_request(CollectiveOp::allreduce, Algorithm::ring, bytes, topology, 4 << 20);
    const double algbw = static_cast<double>(bytes) / simulate(topology, request);
    const double busbw = algbw * bus_bandwidth_factor(CollectiveOp::allreduce, p);
    CAPTURE(p);
    CHECK(busbw / kBandwidth > 0.97);
    CHECK(busbw / kBandwidth <= 1.0);
  }
}

TEST_CASE("hierarchical allreduce beats a flat ring when inter-node links are slower") {
  ClusterParams cluster = make_cluster(TopologyKind::two_level, 32, make_link(450e9, 1e-6));
  cluster.devices_per_node = 8;
  cluster.nics_per_node = 8;
  cluster.leaf_ports = 32;
  cluster.host_link = make_link(64e9, 0.5e-6);
  cluster.nic_link = make_link(50e9, 1e-6);
  cluster.fabric_link = cluster.nic_link;
  const Topology topology(cluster);
  const Bytes bytes = Bytes{1} << 30;
  auto flat = make_request(CollectiveOp::allreduce, Algorithm::ring, bytes, topology, 4 << 20);
  auto hierarchical = make_request(CollectiveOp::allreduce, Algorithm::hierarchical, bytes, topology, 4 << 20);
  const double flat_s = simulate(topology, flat);
  const double hierarchical_s = simulate(topology, hierarchical);
  CAPTURE(flat_s);
  CAPTURE(hierarchical_s);
  CHECK(hierarchical_s < flat_s);
}
