// The `pred` column against the simulated mechanism for every algorithm, protocol and op a bundled cluster runs: the
// 8-GPU NVSwitch clusters (A100 and H100) and the two-node rail clusters (with and without SHARP), at sizes from
// latency-bound (8 B) to bandwidth-bound (128 MiB), sim/pred within 2% unless the table of known gaps below names the
// combination and size, with its reason and the ratio it was measured at.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/cluster_params.h"
#include "sim/engine/collective_sweep.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// A combination where the simulation departs from the prediction, with the ratio sim/pred it was measured at.
struct Measured {
  Bytes bytes;
  double ratio;
};

struct KnownGap {
  std::string cluster;  // a prefix: the SHARP cluster is the rail cluster with reducing leaves, and has its gaps
  net::Algorithm algorithm;
  std::vector<std::string> ops;
  std::string protocol;
  std::vector<Measured> measured;
  const char* reason;
};

// Each measured ratio is held to within kMeasuredTolerance, so a change that widens a gap fails here, and one that
// narrows it asks for the table to be updated; every other size of the combination stays within 2%. All of them are
// contention among one collective's own messages on a link direction (the 2% is asked of an uncontended
// topology); on the 8-GPU switch clusters there are none.
constexpr double kMeasuredTolerance = 0.003;

const std::vector<KnownGap>& known_gaps() {
  static const std::string rail = "2x8xA100-HDR-rail";
  static const std::vector<KnownGap> gaps = {
      // Rail-aligned rings, one channel per NIC: channel c enters a node at GPU c and leaves it at GPU c+1, so every
      // GPU's NVLink port to its node's switch carries the NVLink hops of 7 of the 8 channels (to 2 or 3 distinct
      // neighbours; the switch's port to GPU 0 brings it 6 distinct senders). Between 1 and 8 chunks per shard the
      // channels' steps on that port fall out of lockstep, which the per-step period (each link's work per step)
      // does not see; below and above that the port's order does not matter.
      {rail,
       net::Algorithm::ring,
       {"allreduce"},
       "LL",
       {{Bytes{512} << 10, 1.027}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"allreduce"},
       "LL128",
       {{Bytes{8} << 20, 1.078}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"allgather", "reducescatter"},
       "Simple",
       {{Bytes{8} << 20, 1.020}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"allgather"},
       "LL",
       {{Bytes{512} << 10, 1.055}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"reducescatter"},
       "LL",
       {{Bytes{512} << 10, 1.054}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"allgather"},
       "LL128",
       {{Bytes{8} << 20, 1.047}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"reducescatter"},
       "LL128",
       {{Bytes{8} << 20, 1.055}},
       "ring: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"broadcast"},
       "Simple",
       {{Bytes{128} << 20, 1.056}},
       "ring broadcast: channels on one NVLink port"},
      {rail,
       net::Algorithm::ring,
       {"broadcast"},
       "LL",
       {{Bytes{8} << 20, 1.042}},
       "ring broadcast: channels on one NVLink port"},
      // Direct: a rank reaches the other node's GPU r over NVLink to its own node's GPU r and then rail r, so GPU r's
      // PCIe link to its NIC carries 4 to 12 of the collective's messages (its node's 7 other ranks' messages to the
      // peer on its rail, and its own), and the link from the NIC brings it the other node's 8 (incast), each behind
      // the NIC's 2 us of per-message overhead. The prediction takes each link's queue with its longest way, which
      // overstates the queues: sim/pred below 1.
      {rail,
       net::Algorithm::direct,
       {"allreduce"},
       "Simple",
       {{Bytes{8}, 0.936},
        {Bytes{128}, 0.920},
        {Bytes{2} << 10, 0.920},
        {Bytes{32} << 10, 0.917},
        {Bytes{512} << 10, 0.887},
        {Bytes{8} << 20, 0.952}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"allreduce"},
       "LL",
       {{Bytes{8}, 0.901},
        {Bytes{128}, 0.877},
        {Bytes{2} << 10, 0.877},
        {Bytes{32} << 10, 0.873},
        {Bytes{512} << 10, 0.852}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"allreduce"},
       "LL128",
       {{Bytes{8}, 0.913},
        {Bytes{128}, 0.896},
        {Bytes{2} << 10, 0.895},
        {Bytes{32} << 10, 0.893},
        {Bytes{512} << 10, 0.869},
        {Bytes{8} << 20, 0.969}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"allgather", "alltoall"},
       "Simple",
       {{Bytes{8}, 0.972},
        {Bytes{128}, 0.972},
        {Bytes{2} << 10, 0.972},
        {Bytes{32} << 10, 0.968},
        {Bytes{512} << 10, 0.936},
        {Bytes{8} << 20, 0.979}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"reducescatter"},
       "Simple",
       {{Bytes{8}, 0.972},
        {Bytes{128}, 0.972},
        {Bytes{2} << 10, 0.972},
        {Bytes{32} << 10, 0.968},
        {Bytes{512} << 10, 0.936},
        {Bytes{8} << 20, 0.977}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"allgather", "reducescatter", "alltoall"},
       "LL",
       {{Bytes{8}, 0.958},
        {Bytes{128}, 0.958},
        {Bytes{2} << 10, 0.957},
        {Bytes{32} << 10, 0.950},
        {Bytes{512} << 10, 0.907}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"allgather", "alltoall"},
       "LL128",
       {{Bytes{8}, 0.967},
        {Bytes{128}, 0.967},
        {Bytes{2} << 10, 0.967},
        {Bytes{32} << 10, 0.964},
        {Bytes{512} << 10, 0.930},
        {Bytes{8} << 20, 0.979}},
       "direct: incast at every NIC"},
      {rail,
       net::Algorithm::direct,
       {"reducescatter"},
       "LL128",
       {{Bytes{8}, 0.967},
        {Bytes{128}, 0.967},
        {Bytes{2} << 10, 0.967},
        {Bytes{32} << 10, 0.963},
        {Bytes{512} << 10, 0.929},
        {Bytes{8} << 20, 0.977}},
       "direct: incast at every NIC"},
      // Hierarchical and CollNet run the buffer in slices; every link direction carries one flow (a node ring's hop
      // or a rail's), but a GPU's NVLink port to its ring neighbour passes one slice's all-gather and the next
      // slice's reduce-scatter at once. The prediction takes, per further slice, the busiest link's work, which leaves
      // out how much of the last slice's inter-node phase the ports' backlog hides.
      {rail,
       net::Algorithm::hierarchical,
       {"allreduce"},
       "Simple",
       {{Bytes{128} << 20, 0.971}},
       "hierarchical: slices overlap on a node's NVLink ports"},
      {rail,
       net::Algorithm::hierarchical,
       {"allreduce"},
       "LL",
       {{Bytes{512} << 10, 1.022}},
       "hierarchical: slices overlap on a node's NVLink ports"},
      {rail,
       net::Algorithm::hierarchical,
       {"allreduce"},
       "LL128",
       {{Bytes{128} << 20, 0.953}},
       "hierarchical: slices overlap on a node's NVLink ports"},
      {"2x8xA100-HDR-rail-SHARP",
       net::Algorithm::collnet,
       {"allreduce"},
       "Simple",
       {{Bytes{128} << 20, 0.949}},
       "collnet: slices overlap on a node's NVLink ports"},
      // The tree broadcast over 16 ranks: rank 8 reaches its child 4 on the other node through rank 12's rail, so its
      // NVLink port and the switch's port to rank 12 carry both of its edges (to 12 and, forwarded, to 4). LL's
      // 32 KiB steps let the two edges' chunks interleave on them, which the prediction's per-port queue of the
      // first chunk and per-edge service do not follow.
      {rail,
       net::Algorithm::tree,
       {"broadcast"},
       "LL",
       {{Bytes{512} << 10, 0.864}, {Bytes{8} << 20, 0.792}, {Bytes{128} << 20, 0.785}},
       "tree broadcast: a parent's two edges on one NVLink port"},
      {rail,
       net::Algorithm::tree,
       {"broadcast"},
       "LL128",
       {{Bytes{8} << 20, 0.970}, {Bytes{128} << 20, 0.963}},
       "tree broadcast: a parent's two edges on one NVLink port"},
      {rail,
       net::Algorithm::tree,
       {"broadcast"},
       "Simple",
       {{Bytes{128} << 20, 0.978}},
       "tree broadcast: a parent's two edges on one NVLink port"},
  };
  return gaps;
}

// The measured ratio of a combination and size, if the table names it.
std::optional<Measured> gap_for(const std::string& cluster, net::Algorithm algorithm, const std::string& op,
                                const std::string& protocol, Bytes bytes) {
  for (const auto& gap : known_gaps()) {
    if (cluster.rfind(gap.cluster, 0) != 0 || gap.algorithm != algorithm || gap.protocol != protocol) continue;
    if (std::find(gap.ops.begin(), gap.ops.end(), op) == gap.ops.end()) continue;
    for (const auto& measured : gap.measured) {
      if (measured.bytes == bytes) return measured;
    }
  }
  return std::nullopt;
}

void check_cluster(const std::string& cluster_name) {
  const auto cluster = load_cluster(test::config_path("clusters/" + cluster_name + ".toml"));
  for (const auto op : net::kAllCollectiveOps) {
    for (const auto algorithm : net::kAllAlgorithms) {
      for (const auto protocol : net::kAllProtocols) {
        CollectiveSweepParams params;
        params.op = op;
        params.algorithm = algorithm;
        params.protocol = protocol;
        params.min_bytes = 8;
        params.max_bytes = Bytes{128} << 20;
        params.factor = 16;  // 8 B, 128 B, 2 KiB, 32 KiB, 512 KiB, 8 MiB, 128 MiB
        const auto sweep = run_collective_sweep(cluster, params);
        if (!sweep.unsupported.empty()) continue;
        for (const auto& row : sweep.rows) {
          const std::string op_name(net::to_string(op));
          CAPTURE(cluster_name);
          CAPTURE(op_name);
          CAPTURE(row.algorithm);
          CAPTURE(row.protocol);
          CAPTURE(row.bytes);
          const double ratio = row.run.time_s / row.prediction.time_s;
          CAPTURE(ratio);
          const auto gap = gap_for(cluster_name, algorithm, op_name, row.protocol, row.bytes);
          if (gap) {
            CHECK(std::abs(ratio - gap->ratio) <= kMeasuredTolerance);
          } else {
            CHECK(std::abs(ratio - 1.0) <= 0.02);
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("pred follows the simulation within 2% for every algorithm, protocol and op on the 8-GPU NVSwitch cluster") {
  check_cluster("8xA100-NVSwitch");
}

TEST_CASE(
    "pred follows the simulation within 2% for every algorithm, protocol and op on the 8-GPU H100 NVSwitch cluster") {
  check_cluster("8xH100-NVSwitch");
}

TEST_CASE("pred follows the simulation within 2% for every algorithm, protocol and op on the 2x8 rail cluster") {
  check_cluster("2x8xA100-HDR-rail");
}

TEST_CASE("pred follows the simulation within 2% for every algorithm, protocol and op on the 2x8 SHARP rail cluster") {
  check_cluster("2x8xA100-HDR-rail-SHARP");
}
