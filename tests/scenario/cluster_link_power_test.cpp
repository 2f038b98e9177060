// Link energy in a cluster run's power, against closed forms: a rank's collective costs the device file's energy per
// byte for every byte its links put on the wire (link-layer headers included), spent over each transfer's link
// reservation, so that the governor's windows read it while the links are busy and the power trace integrates to the
// report's energy. Each case is its own process (SystemC elaborates once).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "sim/config/cluster_params.h"
#include "sim/engine/cluster_run.h"
#include "sim/graph/workload.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("a ring allreduce's link energy is wire bytes x energy per byte, read by the governor while links are busy") {
  const auto dir = test::scratch_dir("cluster-link-power");
  const auto file = dir / "allreduce.toml";
  std::ofstream(file) << R"(
[workload]
name = "allreduce"
devices = 8
[[op]]
name = "allreduce"
kind = "allreduce"
dtype = "fp16"
message_bytes = 268435456
)";
  const auto cluster = load_cluster(test::config_path("clusters/8xH100-NVSwitch.toml"));
  const auto workload = load_workload(file, {}, cluster.device);
  ClusterRunOptions options;
  options.algorithm = net::Algorithm::ring;
  const auto run = run_cluster(cluster, workload, options);
  REQUIRE(run.simulated.size() == 1);
  const auto& rank = run.simulated[0];
  const auto& power = rank.result.power;
  REQUIRE(run.collectives.size() == 1);
  const auto& link = cluster.link;
  const double wire_per_payload = link.bandwidth_bytes_per_s / link.payload_bandwidth_bytes_per_s();
  CHECK(wire_per_payload == doctest::Approx(144.0 / 128.0));
  const double energy_per_byte = cluster.device.interconnect.energy_per_byte_j;
  REQUIRE(energy_per_byte > 0);

  // The op's dynamic energy: 2 (p - 1) / p S payload bytes sent, 144/128 of them on the wire, at 10 pJ each.
  const double sent = static_cast<double>(run.collectives[0].bytes_sent_per_rank);
  CHECK(sent == 2.0 * 7.0 / 8.0 * 268435456.0);
  CHECK(test::within(power.ops.at(0).dynamic_j, sent * wire_per_payload * energy_per_byte, 1e-6));

  // The trace integrates to the report's energy.
  double integral = 0;
  for (const auto& sample : power.trace) {
    integral += sample.power.total_w() * static_cast<double>(sample.end_fs - sample.start_fs) * 1e-15;
  }
  CHECK(test::within(integral, power.energy_j, 1e-6));

  // While the ring streams, the device's link to the switch is busy without a gap: a window in the middle of the
  // collective reads the link's wire rate x energy per byte, and none reads more.
  const double link_w = link.bandwidth_bytes_per_s * energy_per_byte;
  const double middle_fs = 0.5 * run.collectives[0].finish_s * 1e15;
  double middle_w = 0, most_w = 0;
  for (const auto& sample : power.trace) {
    most_w = std::max(most_w, sample.power.other_dynamic_w);
    if (static_cast<double>(sample.start_fs) <= middle_fs && middle_fs < static_cast<double>(sample.end_fs)) {
      middle_w = sample.power.other_dynamic_w;
    }
  }
  MESSAGE("link power in the middle window " << middle_w << " W, most " << most_w << " W, wire rate x energy " << link_w
                                             << " W");
  CHECK(test::within(middle_w, link_w, 0.01));
  CHECK(most_w <= link_w * (1 + 1e-9));
}
