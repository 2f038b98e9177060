// The `pred` column against the simulated mechanism on the bundled 8-GPU NVSwitch clusters: the double binary tree
// (every protocol) and NVLink SHARP, swept over sizes, sim/pred within 2%.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "sim/config/cluster_params.h"
#include "sim/engine/collective_sweep.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

void check_sweep(const std::string& cluster_name, net::Algorithm algorithm, net::Protocol protocol, Bytes min_bytes,
                 Bytes max_bytes) {
  const auto cluster = load_cluster(test::config_path("clusters/" + cluster_name + ".toml"));
  CollectiveSweepParams params;
  params.algorithm = algorithm;
  params.protocol = protocol;
  params.min_bytes = min_bytes;
  params.max_bytes = max_bytes;
  params.factor = 4;
  const auto sweep = run_collective_sweep(cluster, params);
  REQUIRE(sweep.unsupported.empty());
  REQUIRE(!sweep.rows.empty());
  for (const auto& row : sweep.rows) {
    CAPTURE(cluster_name);
    CAPTURE(row.protocol);
    CAPTURE(row.bytes);
    const double ratio = row.run.time_s / row.prediction.time_s;
    CAPTURE(ratio);
    CHECK(std::abs(ratio - 1.0) <= 0.02);
  }
}

}  // namespace

// Up to 2 MiB each tree carries its half in one chunk (the first chunk's way up and down, children queued on the
// parent's port); from 32 MiB (LL: 128 MiB) the busiest port binds, late by the leaves' sends of the other tree that
// take the ports first, as far as their send window lets them. Between the two (2-8 chunks per tree) the prediction
// still lies up to 15% below the simulation, and with LL (8 steps of 32 KiB in flight per connection) up to 6% above
// it at 512 KiB-1 MiB.
TEST_CASE("the tree prediction follows the simulated double binary tree on the bundled NVSwitch clusters") {
  for (const std::string cluster : {"8xA100-NVSwitch", "8xH100-NVSwitch"}) {
    for (const auto protocol : {net::Protocol::simple, net::Protocol::ll, net::Protocol::ll128}) {
      // LL moves 32 KiB steps (NCCL's slot of its buffer): one per tree up to 64 KiB.
      check_sweep(cluster, net::Algorithm::tree, protocol, 4096,
                  protocol == net::Protocol::ll ? Bytes{64} << 10 : Bytes{2} << 20);
      const Bytes port_bound = protocol == net::Protocol::ll ? Bytes{128} << 20 : Bytes{32} << 20;
      check_sweep(cluster, net::Algorithm::tree, protocol, port_bound, 2 * port_bound);
    }
  }
}

// Past four chunks of each shard the window of loads closes, and the later returns share the owners' downlinks with
// the multicasts.
TEST_CASE("the NVLS prediction follows the simulated in-switch reduction on the bundled H100 cluster") {
  check_sweep("8xH100-NVSwitch", net::Algorithm::in_switch, net::Protocol::simple, 4096, Bytes{256} << 20);
}
