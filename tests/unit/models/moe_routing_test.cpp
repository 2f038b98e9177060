// Token routing over experts and expert parallelism: balanced routing gives every expert-parallel rank the same
// tokens; a zipf skew gives the most loaded rank the share its closed form says, and the graph of that rank does
// that share of the expert work.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/graph/model_builder.h"
#include "sim/graph/moe_routing.h"
#include "sim/roofline/roofline.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

Flops expert_flops(const Workload& w) {
  Flops total = 0;
  for (const auto& op : w.ops) {
    if (op.kind == OpKind::gemm && op.name.find(".expert") != std::string::npos) total += op.useful_flops;
  }
  return total;
}

ModelWorkloadArgs mixtral_ep(RoutingKind kind) {
  ModelWorkloadArgs a;
  a.phase = ModelPhase::prefill;
  a.batch = 4;
  a.seq = 256;
  a.layers = 1;
  a.dp = 8;
  a.ep = 8;
  a.routing.kind = kind;
  a.routing.zipf_s = 1.2;
  a.routing.seed = 7;
  return a;
}

}  // namespace

TEST_CASE("balanced routing with EP = experts gives every rank the same tokens") {
  const auto load = route_tokens(1024 * 8 * 2, 8, RoutingParams{});
  for (std::uint64_t r = 0; r < 8; ++r) CHECK(rank_tokens(load, 8, r) == 2048);
  const auto config = load_model_config(test::workload_path("models/mixtral_8x7b.json"));
  const auto model = build_model_workload(config, mixtral_ep(RoutingKind::balanced));
  CHECK(model.expert_rank_share == doctest::Approx(1.0 / 8));
  // The one expert of the rank multiplies 4 x 256 x 8 x 2 / 8 = 2048 tokens by its three 4096 x 14336 matrices.
  CHECK(expert_flops(model.workload) == 2ULL * 2048 * 3 * 4096 * 14336);
  std::uint64_t alltoalls = 0;
  for (const auto& op : model.workload.ops) alltoalls += op.kind == OpKind::alltoall ? 1 : 0;
  CHECK(alltoalls == 2);  // dispatch and combine
}

TEST_CASE("zipf routing: the most loaded rank's share and expert work follow 1 / r^s") {
  RoutingParams zipf;
  zipf.kind = RoutingKind::zipf;
  zipf.zipf_s = 1.2;
  zipf.seed = 7;
  const auto shares = expert_shares(8, zipf);
  double harmonic = 0;
  for (int r = 1; r <= 8; ++r) harmonic += std::pow(r, -1.2);
  double largest = 0, sum = 0;
  for (const double share : shares) {
    largest = std::max(largest, share);
    sum += share;
  }
  CHECK(sum == doctest::Approx(1.0));
  CHECK(largest == doctest::Approx(1.0 / harmonic));  // the rank-1 expert's share
  const auto config = load_model_config(test::workload_path("models/mixtral_8x7b.json"));
  const auto balanced = build_model_workload(config, mixtral_ep(RoutingKind::balanced));
  const auto skewed = build_model_workload(config, mixtral_ep(RoutingKind::zipf));
  CHECK(skewed.expert_rank_share == doctest::Approx(1.0 / harmonic).epsilon(1e-3));
  // One expert per rank: its work grows by share x ranks over the balanced rank's (to a token of rounding).
  const double ratio =
      static_cast<double>(expert_flops(skewed.workload)) / static_cast<double>(expert_flops(balanced.workload));
  CHECK(ratio == doctest::Approx(8.0 / harmonic).epsilon(1e-3));
  // Deterministic for a seed; another seed permutes the experts.
  CHECK(expert_shares(8, zipf) == shares);
  zipf.seed = 8;
  CHECK(expert_shares(8, zipf) != shares);
}

TEST_CASE("zipf routing: the most loaded rank's expert time on an H100 grows by its token share") {
  // The binding ceiling's time of the rank's expert GEMMs: 2048 (balanced) or 2048 x 8 / H_8(1.2) tokens through
  // 4096 x 14336 matrices are compute-bound, so the time follows the tokens, the weights' bytes being the same.
  const auto device = make_device_roof(load_hardware(test::config_path("H100-SXM5.toml")));
  const auto expert_time_s = [&](const Workload& w) {
    double total = 0;
    for (const auto& op : w.ops) {
      if (op.kind != OpKind::gemm || op.name.find(".expert") == std::string::npos) continue;
      const auto result = evaluate_roofline(device, compulsory_input(op, device));
      total += result.ceilings[result.binding].time_s;
    }
    return total;
  };
  double harmonic = 0;
  for (int r = 1; r <= 8; ++r) harmonic += std::pow(r, -1.2);
  const auto config = load_model_config(test::workload_path("models/mixtral_8x7b.json"));
  const double balanced = expert_time_s(build_model_workload(config, mixtral_ep(RoutingKind::balanced)).workload);
  const double skewed = expert_time_s(build_model_workload(config, mixtral_ep(RoutingKind::zipf)).workload);
  MESSAGE("expert time " << balanced * 1e3 << " ms balanced, " << skewed * 1e3 << " ms on the most loaded rank");
  CHECK(skewed / balanced == doctest::Approx(8.0 / harmonic).epsilon(0.01));
}

TEST_CASE("a capacity factor drops the assignments beyond capacity") {
  RoutingParams zipf;
  zipf.kind = RoutingKind::zipf;
  zipf.zipf_s = 1.0;
  zipf.capacity_factor = 1.25;
  const auto load = route_tokens(8000, 8, zipf);
  CHECK(load.capacity == 1250);
  std::uint64_t kept = 0;
  for (const auto tokens : load.tokens) {
    CHECK(tokens <= 1250);
    kept += tokens;
  }
  CHECK(kept + load.dropped == 8000);
  // The rank-1 expert wanted 8000 / H_8 = 2940 tokens: 1690 of them are dropped at least.
  CHECK(load.dropped >= 1690);
}

TEST_CASE(
    "MoE training: the dispatch's backward returns the token rows' gradient alone, the gates' comes from the "
    "weighted sum") {
  // The dispatch reads the top-k choices as indices: its backward (an all-to-all with EP, the permutation without)
  // writes the gradient of the t x h token rows, t h x 2 bytes in bf16, and nothing for the t x k choices, whose
  // gradient has the weighted sum's backward as its one producer (no accumulate op adds a second).
  const auto config = load_model_config(test::workload_path("models/mixtral_8x7b.json"));
  for (const std::uint64_t ep : {1, 8}) {
    CAPTURE(ep);
    ModelWorkloadArgs a = mixtral_ep(RoutingKind::balanced);
    a.phase = ModelPhase::train;
    a.batch = 1;
    a.seq = 128;
    a.ep = ep;
    const Workload w = build_model_workload(config, a).workload;
    const Bytes token_rows_bytes = 128ULL * config.hidden * 2;
    const std::string dispatch_bwd = ep > 1 ? "l0.dispatch.bwd" : "l0.permute.bwd";
    std::size_t topk_grad_producers = 0, found = 0;
    for (const auto& op : w.ops) {
      CHECK(op.name.find("accumulate.l0.router.topk.out") == std::string::npos);
      if (op.name == dispatch_bwd) {
        ++found;
        REQUIRE(op.outputs.size() == 1);
        const auto& out = w.tensors.at(op.outputs[0]);
        CHECK(out.name.rfind("l0.norm2.out.grad", 0) == 0);
        CHECK(out.bytes == token_rows_bytes);
      }
      for (const auto index : op.outputs) {
        if (w.tensors.at(index).name.rfind("l0.router.topk.out.grad", 0) != 0) continue;
        ++topk_grad_producers;
        CHECK(op.name == "l0.weighted_sum.bwd");
        CHECK(w.tensors.at(index).bytes == 128ULL * config.experts_per_token * 2);
      }
    }
    CHECK(found == 1);
    CHECK(topk_grad_producers == 1);
  }
}
