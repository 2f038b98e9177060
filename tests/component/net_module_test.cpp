// The SystemC shell of the network between a stub issuer: collectives issued from a process finish at the time the
// plain core computes for them, offset by their issue time, and the module sleeps between events.
#include <doctest/doctest.h>

#include <systemc>

#include <memory>

#include "models/net/collectives.h"
#include "models/net/network_module.h"
#include "sim/config/cluster_params.h"

using namespace roofsim;
using namespace roofsim::net;

namespace {

ClusterParams ring_cluster(std::uint64_t devices) {
  ClusterParams cluster;
  cluster.devices = devices;
  cluster.topology = TopologyKind::ring;
  cluster.link = LinkParams{100e9, 1e-6, 0.2e-6};
  return cluster;
}

CollectiveRequest allreduce(const Topology& topology, Bytes bytes) {
  CollectiveRequest request;
  request.bytes = bytes;
  request.ranks = topology.ring_order();
  request.chunk_bytes = 256 * 1024;
  return request;
}

struct Issuer : sc_core::sc_module {
  SC_HAS_PROCESS(Issuer);
  Issuer(const sc_core::sc_module_name& name, NetworkModule& network, std::shared_ptr<const Schedule> schedule)
      : sc_core::sc_module(name), network_(network), schedule_(std::move(schedule)) {
    SC_THREAD(run);
  }
  void run() {
    wait(sc_core::sc_time(10, sc_core::SC_US));
    const auto first = network_.issue(schedule_);
    wait(network_.done(first));
    first_done = sc_core::sc_time_stamp();
    wait(sc_core::sc_time(5, sc_core::SC_US));
    second_issue = sc_core::sc_time_stamp();
    const auto second = network_.issue(schedule_);
    wait(network_.done(second));
    second_done = sc_core::sc_time_stamp();
  }
  NetworkModule& network_;
  std::shared_ptr<const Schedule> schedule_;
  sc_core::sc_time first_done, second_issue, second_done;
};

}  // namespace

TEST_CASE("network module: collectives issued from a process finish when the core says, offset by issue time") {
  const Topology topology(ring_cluster(4));
  const auto request = allreduce(topology, 8 << 20);
  NetworkOptions options;
  options.packet_bytes = 64 * 1024;
  auto schedule = std::make_shared<const Schedule>(build_schedule(request));
  NetworkCore alone(topology, options);
  const auto reference = alone.issue(schedule, 0);
  (void)alone.run();
  // The time resolution is 1 fs (prepare_systemc_process), so core times are kernel ticks: compare exactly.
  const auto alone_time = sc_core::sc_time::from_value(alone.finish_fs(reference));
  NetworkModule network("network", topology, options);
  Issuer issuer("issuer", network, schedule);
  sc_core::sc_start();
  CHECK(issuer.first_done == sc_core::sc_time(10, sc_core::SC_US) + alone_time);
  CHECK(issuer.second_done - issuer.second_issue == alone_time);
  // Events at interesting times only: the core's events, not one per packet or per byte.
  CHECK(network.core().events() < 2 * 2 * schedule->size() + 4);
}
