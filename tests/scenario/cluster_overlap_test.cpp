// SPMD cluster runs against closed forms: a data-parallel step's bucketed gradient AllReduces
// finish at finish_i = max(ready_i, finish_{i-1}) + allreduce_i, and the step ends at max(backward end, last finish);
// a tensor-parallel block costs its sharded compute plus two activation AllReduces per block; a GPipe pipeline of S
// stages and m micro-batches idles (S - 1) / (m + S - 1) of the step, forward only and for a training step.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "models/net/collectives.h"
#include "models/net/network_core.h"
#include "models/net/reduction_model.h"
#include "models/net/topology.h"
#include "sim/config/cluster_params.h"
#include "sim/config/model_params.h"
#include "sim/engine/cluster_run.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

ClusterParams h100_cluster(std::uint64_t devices, const std::string& link_bandwidth = "450GB/s") {
  return load_cluster(test::config_path("clusters/8xH100-NVSwitch.toml"),
                      {{"cluster.devices", std::to_string(devices)}, {"link.bandwidth", link_bandwidth}});
}

std::filesystem::path write_workload(const std::string& name, const std::string& text) {
  const auto path = test::scratch_dir(name) / (name + ".toml");
  std::ofstream(path) << text;
  return path;
}

// The collective alone on an idle network: what allreduce_i costs.
Seconds standalone_s(const ClusterParams& cluster, const GroupCollectiveStats& collective, net::CollectiveOp op) {
  const net::Topology topology(cluster);
  net::CollectiveRequest request;
  request.op = op;
  request.algorithm = net::Algorithm::ring;
  request.bytes = collective.message_bytes;
  if (collective.group_size == cluster.devices) {
    request.ranks = topology.ring_order();
  } else {
    for (std::uint64_t r = 0; r < collective.group_size; ++r) {
      request.ranks.push_back(static_cast<net::NodeId>(collective.group * collective.group_size + r));
    }
  }
  request.chunk_bytes = cluster.collective.chunk_bytes;
  net::NetworkOptions options;
  options.packet_bytes = cluster.collective.packet_bytes;
  options.reduction = net::ReductionModel(reduction_params(cluster.device, cluster.collective.data_type));
  return net::run_collective(topology, request, options).time_s;
}

}  // namespace

TEST_CASE(
    "DP step on 8 ranks: bucket i finishes at max(ready_i, finish_i-1) + allreduce_i and the step ends at the "
    "later of backward and the last bucket") {
  // Links slowed to 100 GB/s so that buckets queue behind each other (the finish_i-1 term binds).
  const auto cluster = h100_cluster(8, "100GB/s");
  const auto file = write_workload("dp-overlap", R"(
[workload]
name = "dp_small"
devices = "devices"
[params]
devices = 8
[[template]]
name = "train"
kind = "dp_training_step"
hidden = 1024
ffn = 4096
seq = 128
batch = 1
layers = 3
dtype = "fp16"
bucket_size = "16MiB"
)");
  const auto workload = load_workload(file, {}, cluster.device);
  const auto result = run_cluster(cluster, workload);
  REQUIRE(result.simulated.size() == 1);
  const auto& rank = result.simulated.front();
  // Six weight gradients of 1024 x 4096 fp16 = 8 MiB in buckets of at least 16 MiB: three buckets of two.
  REQUIRE(result.collectives.size() == 3);
  for (const auto& collective : result.collectives) CHECK(collective.message_bytes == 16ULL << 20);

  Seconds finish = 0;
  std::size_t queued = 0;  // buckets that waited for the one before (the finish_i-1 term binds)
  for (const auto& collective : result.collectives) {
    if (collective.ready_s < finish) ++queued;
    const Seconds allreduce = standalone_s(cluster, collective, net::CollectiveOp::allreduce);
    // ready_i: the moment the gradient existed on every rank (the simulated end of the op that produced it).
    finish = std::max(collective.ready_s, finish) + allreduce;
    MESSAGE(collective.name << ": ready " << collective.ready_s * 1e6 << " us, finish " << collective.finish_s * 1e6
                            << " us, predicted " << finish * 1e6 << " us, allreduce " << allreduce * 1e6 << " us");
    CHECK(test::within(collective.finish_s, finish, 0.02));
  }
  Seconds backward_end = 0;
  Seconds step_end = 0;  // without the SGD updates, which the formula leaves out
  for (const auto& op : rank.result.ops) {
    if (op.name.find(".sgd") != std::string::npos) continue;
    step_end = std::max(step_end, op.end_s);
    if (op.simulated) backward_end = std::max(backward_end, op.end_s);
  }
  const Seconds predicted = std::max(backward_end, finish);
  CHECK(queued > 0);
  MESSAGE("backward end " << backward_end * 1e6 << " us, last bucket " << finish * 1e6 << " us, step (no SGD) "
                          << step_end * 1e6 << " us, whole step " << rank.step.step_s * 1e6 << " us");
  CHECK(test::within(step_end, predicted, 0.02));
  // Communication overlapped backward compute: less of it is exposed than was spent.
  CHECK(rank.step.exposed_communication_s < rank.step.communication_s);
  CHECK(rank.step.exposed_communication_s > 0);
}

TEST_CASE("TP block on 8 ranks: step = sharded compute + 2 activation allreduces per block") {
  const auto cluster = h100_cluster(8);
  const auto file = write_workload("tp-block", R"(
[workload]
name = "tp_block"
devices = "devices"
[params]
devices = 8
[[template]]
name = "block"
kind = "transformer_block"
hidden = 4096
heads = 32
ffn = 16384
seq = 1024
batch = 2
layers = 2
tensor_parallel = "devices"
dtype = "fp16"
)");
  const auto workload = load_workload(file, {}, cluster.device);
  const auto result = run_cluster(cluster, workload);
  const auto& rank = result.simulated.front();
  REQUIRE(result.collectives.size() == 4);  // 2 per block, 2 blocks
  Seconds communication = 0;
  for (const auto& collective : result.collectives) {
    CHECK(collective.group_size == 8);
    CHECK(collective.message_bytes == 2048ULL * 4096 * 2);
    communication += standalone_s(cluster, collective, net::CollectiveOp::allreduce);
  }
  // The block is a chain: each op waits for the one before, so compute and communication add.
  Seconds compute = 0;
  Flops gemm_flops = 0;
  for (const auto& op : rank.result.ops) {
    if (op.simulated) compute += op.sim_time_s;
    if (op.kind == "gemm") gemm_flops += op.useful_flops;
  }
  // Each rank does 1/8 of the block's GEMMs: 2 T (h 3h + h h + h f + f h) per block unsharded, T = 2048 tokens.
  const std::uint64_t t = 2048, h = 4096, f = 16384;
  CHECK(gemm_flops * 8 == 2 * 2 * t * (h * 3 * h + h * h + h * f + f * h));
  MESSAGE("step " << rank.step.step_s * 1e6 << " us, compute " << compute * 1e6 << " us, 4 allreduces "
                  << communication * 1e6 << " us");
  CHECK(test::within(rank.step.step_s, compute + communication, 0.02));
  CHECK(test::within(rank.step.exposed_communication_s, communication, 0.02));
}

namespace {
// Four GPipe stages of one small transformer layer each (CI-sized), `micro_batches` per step, forward only or a
// training step (forward then backward).
// The stages on the DRAM channel model: the closed forms take every micro-batch to last as long on every stage, while
// the detailed DRAM's state (open rows, refresh) differs between stages, whose ops start at different times, and
// moves a stage's busy time by about 1 %, as much as the forms' tolerance.
ClusterParams pipeline_cluster() {
  return load_cluster(test::config_path("clusters/8xH100-NVSwitch.toml"),
                      {{"cluster.devices", "4"},
                       {"link.bandwidth", "450GB/s"},
                       {"dram.model", "simple"},
                       // The schedule alone: stages at their power limit would run at clocks of their own.
                       {"power.cap", "0W"}});
}

std::filesystem::path pipeline_workload(int micro_batches, bool training) {
  const std::string name = training ? "pipeline_training" : "pipeline";
  return write_workload(name, "[workload]\nname = \"" + name +
                                  "\"\ndevices = \"devices\"\n[params]\ndevices = 4\n[[template]]\nname = \"stage\"\n"
                                  "kind = \"pipeline_stage\"\nhidden = 1024\nffn = 8192\nseq = 512\nbatch = 1\n"
                                  "layers = 1\nmicro_batches = " +
                                  std::to_string(micro_batches) + (training ? "\ntraining = true" : "") +
                                  "\ndtype = \"fp16\"\n");
}
}  // namespace

TEST_CASE("GPipe forward on 4 stages and 8 micro-batches: each stage idles (S-1)/(m+S-1) of the step") {
  const auto cluster = pipeline_cluster();
  const auto file = pipeline_workload(8, false);
  const auto workload = load_workload(file, {}, cluster.device);
  const auto result = run_cluster(cluster, workload);
  REQUIRE(result.simulated.size() == 4);      // stages differ: no collapse
  CHECK(result.collectives.size() == 3 * 8);  // every stage but the last sends each micro-batch
  const double stages = 4, micro_batches = 8;
  const double expected = (stages - 1) / (micro_batches + stages - 1);
  // The fill also waits for S - 1 messages: with a message taking c, the step is (m + S - 1) t_f + (S - 1) c for a
  // stage busy m t_f, and the bubble is that form's idle share.
  Seconds message = 0;
  for (const auto& c : result.collectives) message = std::max(message, c.finish_s - c.issue_s);
  for (const auto& rank : result.simulated) {
    const double bubble = 1.0 - rank.step.compute_s / result.sim_time_s;
    const double step_with_messages =
        (micro_batches + stages - 1) * rank.step.compute_s / micro_batches + (stages - 1) * message;
    const double bubble_with_messages = 1.0 - rank.step.compute_s / step_with_messages;
    MESSAGE("stage " << rank.rank << ": busy " << rank.step.compute_s * 1e6 << " us of " << result.sim_time_s * 1e6
                     << " us, bubble " << bubble << ", (S-1)/(m+S-1) = " << expected << ", with messages "
                     << bubble_with_messages);
    CHECK(bubble >= expected);
    CHECK(test::within(bubble, bubble_with_messages, 0.02));
    CHECK(test::within(result.sim_time_s, step_with_messages, 0.01));
  }
}

TEST_CASE("GPipe training step on 4 stages and 4 micro-batches: each stage idles (S-1)/(m+S-1) of the step") {
  const auto cluster = pipeline_cluster();
  const auto file = pipeline_workload(4, true);
  const auto workload = load_workload(file, {}, cluster.device);
  const auto result = run_cluster(cluster, workload);
  REQUIRE(result.simulated.size() == 4);
  CHECK(result.collectives.size() == 2 * 3 * 4);  // forward and backward: every stage but one sends each micro-batch
  const double stages = 4, micro_batches = 4;
  const double expected = (stages - 1) / (micro_batches + stages - 1);
  // The fill and drain of each pass also wait for S - 1 messages: with a message taking c, the step is
  // (m + S - 1) (t_f + t_b) + 2 (S - 1) c for a stage busy m (t_f + t_b).
  Seconds message = 0;
  for (const auto& c : result.collectives) message = std::max(message, c.finish_s - c.issue_s);
  for (const auto& rank : result.simulated) {
    const double bubble = 1.0 - rank.step.compute_s / result.sim_time_s;
    const double step_with_messages =
        (micro_batches + stages - 1) * rank.step.compute_s / micro_batches + 2 * (stages - 1) * message;
    MESSAGE("stage " << rank.rank << ": busy " << rank.step.compute_s * 1e6 << " us of " << result.sim_time_s * 1e6
                     << " us, bubble " << bubble << ", (S-1)/(m+S-1) = " << expected << ", with messages "
                     << 1.0 - rank.step.compute_s / step_with_messages);
    CHECK(test::within(bubble, expected, 0.05));
    CHECK(test::within(result.sim_time_s, step_with_messages, 0.01));
    // Receives wait for the previous (forward) or next (backward) stage: communication, part of it exposed.
    CHECK(rank.step.communication_s > 0);
    CHECK(rank.step.exposed_communication_s <= rank.step.communication_s);
  }
}
