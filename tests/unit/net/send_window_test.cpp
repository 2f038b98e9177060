// The send window of a connection (NCCL's NCCL_STEPS buffer slots): schedules hold the dependency, the network
// plays it, and the prediction follows it, against closed forms.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

#include "models/net/alpha_beta.h"
#include "models/net/protocol.h"
#include "net_test_support.h"

using namespace roofsim;
using namespace roofsim::net;
using namespace roofsim::net::test;

namespace {

constexpr double kBandwidth = 100e9;
constexpr Seconds kLatency = 0.5e-6;

}  // namespace

TEST_CASE("NCCL's buffers: 4 MiB for Simple, 512 KiB of LL lines and 4,915,200 B of LL128 lines per connection") {
  CHECK(protocol_cost(Protocol::simple, Algorithm::ring).buffer_payload_bytes() == Bytes{4} << 20);
  CHECK(protocol_cost(Protocol::ll, Algorithm::ring).buffer_payload_bytes() == Bytes{256} << 10);
  CHECK(protocol_cost(Protocol::ll128, Algorithm::ring).buffer_payload_bytes() == 4915200 / 128 * 120);
  CHECK(ProtocolCost{}.buffer_payload_bytes() == 0);
}

TEST_CASE("a dependency added on a later op is played, and a cycle of them is refused") {
  Schedule schedule;
  const OpId first = schedule.add_transfer(0, 1, 100);
  const OpId second = schedule.add_transfer(0, 1, 100);
  schedule.add_dependency(first, second);
  schedule.finalize();
  CHECK(schedule.dependency_count(first) == 1);
  CHECK(*schedule.dependencies_begin(first) == second);
  CHECK(std::distance(schedule.successors_begin(second), schedule.successors_end(second)) == 1);

  Schedule cyclic;
  const OpId a = cyclic.add_transfer(0, 1, 100);
  const OpId b = cyclic.add_transfer(1, 0, 100, {a});
  cyclic.add_dependency(a, b);
  CHECK_THROWS_AS(cyclic.finalize(), std::logic_error);
}

// A ring of p devices, one link per step, LL with 1 MiB chunks: the 256 KiB window holds less than one chunk, so each
// connection sends one chunk at a time, each after the one before has been reduced (free) or has arrived: the 2(p-1)k
// sends of a connection follow one another D apart, D = max(step latency, link latency) + wire(chunk) / B, however
// fast the link would pass them. Without the window the chunks of a step leave back to back, and the link latency
// (10 us here) is paid once per step rather than once per chunk.
TEST_CASE("with a window smaller than a chunk, a ring's sends go one at a time: launch + 2(p-1) k D, exactly") {
  constexpr Seconds kSlowLatency = 10e-6;
  const std::uint64_t p = 4;
  const Bytes chunk = Bytes{1} << 20;
  const double k = 4;
  const Bytes bytes = static_cast<Bytes>(p * k) * chunk;
  const Topology topology(make_cluster(TopologyKind::ring, p, make_link(kBandwidth, kSlowLatency)));
  NetworkOptions options;
  options.packet_bytes = 64 * 1024;
  options.protocol = protocol_cost(Protocol::ll, Algorithm::ring);
  auto request = make_request(CollectiveOp::allreduce, Algorithm::ring, bytes, topology, chunk);
  request.send_window_bytes = options.protocol.buffer_payload_bytes();
  const double d =
      std::max(options.protocol.hop_nvlink_s, kSlowLatency) + 2.0 * static_cast<double>(chunk) / kBandwidth;
  const double expected = options.protocol.launch_s + 2.0 * (static_cast<double>(p) - 1.0) * k * d;
  CHECK(within(run_collective(topology, request, options).time_s, expected, 1e-9));
  CHECK(within(predict(request, topology, options).time_s, expected, 1e-9));
  // Unlimited: each step's chunks are pipelined, about 21 of every 31 us per chunk.
  request.send_window_bytes = 0;
  CHECK(run_collective(topology, request, options).time_s < 0.75 * expected);
}

// A double binary tree on a switch: without a window a leaf of one tree sends all its chunks at once and they take its
// port ahead of the other tree's (where it is interior); with Simple's 4 MiB window at most 4 of its 1 MiB chunks
// wait there, so the port's four tree edges share it and the allreduce is bound by each port's work: 2 S per
// direction (in the tree where a rank is interior it takes in its two children's halves and its parent's, and sends
// as many), 2 S / B, and less than 2 % more for the launch and the first and last chunks' ways through the tree.
TEST_CASE("a tree's send window keeps a leaf's sends from holding up the other tree: each port's work binds") {
  const std::uint64_t p = 8;
  const Topology topology(make_cluster(TopologyKind::switch_star, p, make_link(kBandwidth, kLatency)));
  NetworkOptions options;
  options.packet_bytes = 64 * 1024;
  options.protocol = protocol_cost(Protocol::simple, Algorithm::tree);
  const Bytes bytes = Bytes{256} << 20;
  auto request = make_request(CollectiveOp::allreduce, Algorithm::tree, bytes, topology, Bytes{1} << 20);
  request.send_window_bytes = options.protocol.buffer_payload_bytes();
  const double port_work_s = 2.0 * static_cast<double>(bytes) / kBandwidth;
  const double windowed_s = run_collective(topology, request, options).time_s;
  CHECK(windowed_s > port_work_s);
  CHECK(windowed_s < port_work_s * 1.02);
  CHECK(within(predict(request, topology, options).time_s, windowed_s, 0.01));
  request.send_window_bytes = 0;
  CHECK(run_collective(topology, request, options).time_s > 1.15 * windowed_s);
}
