// `roofsim collective`'s sweep: one row per size from min to max by the factor, the fixed algorithm's name on each,
// and an algorithm the cluster cannot run reported rather than run.
#include <doctest/doctest.h>

#include "sim/engine/collective_sweep.h"

using namespace roofsim;

namespace {

ClusterParams switch_cluster(std::uint64_t devices) {
  ClusterParams cluster;
  cluster.name = "test";
  cluster.devices = devices;
  cluster.topology = TopologyKind::switch_star;
  cluster.link = LinkParams{100e9, 1e-6, 0.0};
  cluster.collective.reduce_cost = ReduceCost::free;  // no device file: reductions cost nothing
  return cluster;
}

}  // namespace

TEST_CASE("a collective sweep runs every size from min to max by the factor, beside its prediction") {
  CollectiveSweepParams params;
  params.op = net::CollectiveOp::allreduce;
  params.algorithm = net::Algorithm::ring;
  params.min_bytes = 1024;
  params.max_bytes = 1024 * 1024;
  params.factor = 4;
  params.chunk_bytes = 64 * 1024;
  params.packet_bytes = 4 * 1024;
  const auto sweep = run_collective_sweep(switch_cluster(8), params);
  CHECK(sweep.unsupported.empty());
  CHECK(sweep.gamma_s_per_byte == 0.0);
  CHECK(sweep.ranks == 8);
  CHECK(sweep.bus_factor == doctest::Approx(2.0 * 7 / 8));
  CHECK(sweep.chunk_bytes == 64 * 1024);
  CHECK(sweep.packet_bytes == 4 * 1024);
  REQUIRE(sweep.rows.size() == 6);  // 1 KiB, 4 KiB, ..., 1 MiB
  for (std::size_t i = 0; i < sweep.rows.size(); ++i) {
    CHECK(sweep.rows[i].bytes == 1024ULL << (2 * i));
    CHECK(sweep.rows[i].algorithm == "ring");
    CHECK(sweep.rows[i].run.time_s > 0);
    CHECK(sweep.rows[i].prediction.time_s > 0);
  }
}

TEST_CASE("a collective sweep with an algorithm the group cannot run reports why and runs nothing") {
  CollectiveSweepParams params;
  params.algorithm = net::Algorithm::halving_doubling;  // needs a power-of-two group
  params.min_bytes = params.max_bytes = 1024;
  const auto sweep = run_collective_sweep(switch_cluster(6), params);
  CHECK(!sweep.unsupported.empty());
  CHECK(sweep.rows.empty());
}
