// A message crossing FIFO links packet by packet, in closed form, against a packet-by-packet reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "models/net/packet_train.h"

using namespace roofsim;
using namespace roofsim::net;

namespace {

struct Hop {
  double bandwidth;
  TimeFs overhead_fs;
  TimeFs latency_fs;
  TimeFs busy_fs;
};

// The reference: every packet through every link, f(j) = max(f(j-1), a(j)) + t.
TimeFs packet_by_packet(Bytes bytes, Bytes packet, TimeFs ready, std::vector<Hop> hops) {
  const std::uint64_t n = bytes == 0 ? 1 : (bytes + packet - 1) / packet;
  std::vector<TimeFs> arrival(n, ready);
  for (auto& hop : hops) {
    TimeFs previous = hop.busy_fs;
    for (std::uint64_t j = 0; j < n; ++j) {
      const Bytes size = j + 1 < n ? packet : bytes - (n - 1) * packet;
      const TimeFs start = std::max(previous, arrival[j]) + (j == 0 ? hop.overhead_fs : 0);
      previous = start + serialisation_fs(size, hop.bandwidth);
      arrival[j] = previous + hop.latency_fs;
    }
  }
  return arrival.back();
}

}  // namespace

TEST_CASE("one link: overhead + bytes / bandwidth + latency, whatever the packet size") {
  for (const Bytes packet : {Bytes{4096}, Bytes{65536}, Bytes{1} << 30}) {
    PacketTrain train(1000000, packet, 0);
    TimeFs busy = 0;
    train.cross(busy, 1e9, 500, 2000);
    CHECK(train.last_arrival_fs() == 500 + 1000000000000 + 2000);
    CHECK(busy == 500 + 1000000000000);
  }
}

TEST_CASE("several links of different speeds, busy links: the closed form equals packet-by-packet") {
  const std::vector<Hop> hops = {
      {100e9, 1000, 500000, 0}, {50e9, 0, 300000, 7000000}, {200e9, 2000, 100000, 0}, {25e9, 0, 0, 90000000}};
  for (const Bytes bytes : {Bytes{0}, Bytes{1}, Bytes{65536}, Bytes{1000000}, Bytes{3 << 20}}) {
    for (const Bytes packet : {Bytes{4096}, Bytes{65536}}) {
      PacketTrain train(bytes, packet, 1000);
      for (const auto& hop : hops) {
        TimeFs busy = hop.busy_fs;
        train.cross(busy, hop.bandwidth, hop.overhead_fs, hop.latency_fs);
      }
      CAPTURE(bytes);
      CAPTURE(packet);
      CHECK(train.last_arrival_fs() == packet_by_packet(bytes, packet, 1000, hops));
    }
  }
}

TEST_CASE("store and forward per packet: smaller packets pipeline across hops") {
  // Two equal links: a message of n packets takes (n + 1) packet times (plus latency), not 2n.
  PacketTrain small(1 << 20, 64 << 10, 0);
  PacketTrain whole(1 << 20, 1 << 20, 0);
  for (auto* train : {&small, &whole}) {
    TimeFs first = 0, second = 0;
    train->cross(first, 1e9, 0, 0);
    train->cross(second, 1e9, 0, 0);
  }
  const TimeFs packet_time = serialisation_fs(64 << 10, 1e9);
  CHECK(small.last_arrival_fs() == 17 * packet_time);
  CHECK(whole.last_arrival_fs() == 32 * packet_time);
}
