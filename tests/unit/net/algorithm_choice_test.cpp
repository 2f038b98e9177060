// `auto`: the fastest algorithm in simulation, found without simulating candidates that their link-load lower bound
// rules out; and that bound never exceeds a simulated time.
#include <doctest/doctest.h>

#include <memory>

#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

TEST_CASE("the link-load bound is a lower bound of every algorithm's simulated time (2D and 3D tori)") {
  for (const auto& dims : {std::vector<std::uint64_t>{4, 4}, std::vector<std::uint64_t>{2, 4, 4}}) {
    ClusterParams cluster = make_cluster(TopologyKind::torus, dims[0] * dims[1] * (dims.size() == 3 ? dims[2] : 1),
                                         make_link(50e9, 1e-6, 0.1e-6));
    cluster.dims = dims;
    const Topology topology(cluster);
    for (const auto op : kAllCollectiveOps) {
      for (const auto algorithm : kAllAlgorithms) {
        auto request = make_request(op, algorithm, 16 << 20, topology, 1 << 20);
        if (!unsupported_reason(request).empty()) continue;
        const auto schedule = build_schedule(request);
        CAPTURE(to_string(op));
        CAPTURE(to_string(algorithm));
        CHECK(link_load_bound_s(schedule, topology) <= simulate(topology, request));
      }
    }
  }
}

TEST_CASE("auto picks the algorithm with the least simulated time") {
  const Topology topology(two_level_cluster(16, 4, 4));
  for (const Bytes bytes : {Bytes{4096}, Bytes{64} << 20}) {
    auto request = make_request(CollectiveOp::allreduce, Algorithm::ring, bytes, topology, 1 << 20);
    NetworkOptions options;
    const auto choice = fastest_algorithm(topology, request, options);
    for (const auto algorithm : kAllAlgorithms) {
      auto candidate = make_request(CollectiveOp::allreduce, algorithm, bytes, topology, 1 << 20);
      if (!unsupported_reason(candidate).empty()) continue;
      CAPTURE(to_string(algorithm));
      CHECK(choice.run.time_s <= simulate(topology, candidate));
    }
  }
}

TEST_CASE("every op and algorithm moves the bytes its definition requires") {
  const Topology topology(make_cluster(TopologyKind::switch_star, 8, make_link(100e9, 1e-6)));
  const Bytes s = Bytes{8} << 20;
  for (const auto algorithm : kAllAlgorithms) {
    auto request = make_request(CollectiveOp::allreduce, algorithm, s, topology, 1 << 20);
    if (!unsupported_reason(request).empty()) continue;
    const auto schedule = build_schedule(request);
    Bytes received = 0, reduced = 0;
    for (NodeId d = 0; d < 8; ++d) {
      received += schedule.bytes_received_by(d);
      reduced += schedule.bytes_reduced_by(d);
    }
    CAPTURE(to_string(algorithm));
    // Every rank ends with all S bytes reduced over all 8 inputs: at least (p-1)/p S arrives at each rank, and
    // the reductions combine 7 of 8 contributions of every byte (none in the switch algorithm: the switch adds).
    CHECK(received >= 8 * (s / 8 * 7));
    if (algorithm != Algorithm::in_switch) CHECK(reduced == 7 * s);
  }
  // Ring allreduce: each rank sends exactly 2(p-1)/p S (Patarasuk and Yuan 2009).
  const auto ring = build_schedule(make_request(CollectiveOp::allreduce, Algorithm::ring, s, topology, 1 << 20));
  for (NodeId d = 0; d < 8; ++d) CHECK(ring.bytes_sent_by(d) == 2 * 7 * s / 8);
  // Alltoall: each rank sends (p-1)/p S.
  const auto a2a = build_schedule(make_request(CollectiveOp::alltoall, Algorithm::direct, s, topology, 1 << 20));
  for (NodeId d = 0; d < 8; ++d) CHECK(a2a.bytes_sent_by(d) == 7 * s / 8);
}
