// Training parallelisms in the built graph: ZeRO-3 gathers each layer's parameters once per forward and once per
// backward, ZeRO-1 reduce-scatters gradients and gathers the updated shard, sequence parallelism replaces
// all-reduces by all-gather and reduce-scatter, and pipeline schedules leave the bubble their closed form says.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/graph/memory_footprint.h"
#include "sim/graph/model_builder.h"
#include "sim/graph/model_counts.h"
#include "sim/graph/pipeline_schedule.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

ModelConfig llama8b() {
  return load_model_config(test::workload_path("models/llama3_8b.json"));
}

std::uint64_t count(const Workload& w, OpKind kind, const std::string& part = "") {
  std::uint64_t n = 0;
  for (const auto& op : w.ops) n += op.kind == kind && op.name.find(part) != std::string::npos ? 1 : 0;
  return n;
}

ModelWorkloadArgs training(std::uint64_t layers) {
  ModelWorkloadArgs a;
  a.phase = ModelPhase::train;
  a.batch = 1;
  a.seq = 128;
  a.layers = layers;
  return a;
}

}  // namespace

TEST_CASE("ZeRO-3 all-gathers every layer's parameters once per forward and once per backward") {
  auto args = training(3);
  args.dp = 4;
  args.zero = 3;
  const auto model = build_model_workload(llama8b(), args);
  for (int layer = 0; layer < 3; ++layer) {
    CAPTURE(layer);
    const std::string l = "l" + std::to_string(layer) + ".";
    CHECK(count(model.workload, OpKind::allgather, l + "zero3") == 1);
    CHECK(count(model.workload, OpKind::allgather, l + "bwd.zero3") == 1);
    CHECK(count(model.workload, OpKind::reducescatter, l + "grads") == 1);
  }
  CHECK(count(model.workload, OpKind::allreduce) == 0);
  // The gathered bytes of a layer: its parameters in bf16.
  const auto* gather = model.workload.find_op("l1.zero3.allgather");
  REQUIRE(gather != nullptr);
  const std::uint64_t layer_params = 4096ULL * 6144 + 4096ULL * 4096 + 3ULL * 4096 * 14336;
  CHECK(gather->shape.message_bytes == 2 * layer_params);
}

TEST_CASE("ZeRO-1 reduce-scatters gradients and all-gathers updated parameters, ZeRO-0 all-reduces") {
  auto args = training(2);
  args.dp = 8;
  args.zero = 1;
  const auto zero1 = build_model_workload(llama8b(), args);
  CHECK(count(zero1.workload, OpKind::reducescatter, "l1.grads") == 1);
  CHECK(count(zero1.workload, OpKind::allgather, "l1.params") == 1);
  const auto* adam = zero1.workload.find_op("l1.adam");
  REQUIRE(adam != nullptr);
  const std::uint64_t layer_params = 4096ULL * 6144 + 4096ULL * 4096 + 3ULL * 4096 * 14336;
  CHECK(adam->shape.elements == layer_params / 8);
  args.zero = 0;
  const auto zero0 = build_model_workload(llama8b(), args);
  CHECK(count(zero0.workload, OpKind::allreduce, "l1.grads") == 1);
  CHECK(zero0.workload.find_op("l1.adam")->shape.elements == layer_params);
}

TEST_CASE("tensor parallelism: two all-reduces per layer forward and two backward, sequence parallel gathers") {
  auto args = training(2);
  args.tp = 4;
  const auto plain = build_model_workload(llama8b(), args);
  CHECK(count(plain.workload, OpKind::allreduce) == 2 * 2 * 2);
  args.sequence_parallel = true;
  const auto sp = build_model_workload(llama8b(), args);
  CHECK(count(sp.workload, OpKind::allreduce) == 0);
  // Per layer forward: gather before attention and MLP, scatter after; backward the conjugates; plus the final norm's.
  CHECK(count(sp.workload, OpKind::allgather) == 2 * 2 * 2 + 1);
  CHECK(count(sp.workload, OpKind::reducescatter) == 2 * 2 * 2 + 1);
}

TEST_CASE("pipeline bubbles: 1F1B and GPipe leave (p - 1) / (m + p - 1), interleaving divides the fill by v") {
  for (const auto& [p, m] : {std::pair<std::uint64_t, std::uint64_t>{4, 8}, {8, 16}, {2, 1}, {4, 4}}) {
    CAPTURE(p);
    CAPTURE(m);
    const double expected = static_cast<double>(p - 1) / static_cast<double>(m + p - 1);
    const auto one = simulate_pipeline(PipelineScheduleKind::one_f_one_b, p, m, 1, 1.0, 2.0);
    CHECK(one.bubble_fraction == doctest::Approx(expected));
    CHECK(one.peak_in_flight == std::min(p, m));
    const auto gpipe = simulate_pipeline(PipelineScheduleKind::gpipe, p, m, 1, 1.0, 2.0);
    CHECK(gpipe.bubble_fraction == doctest::Approx(expected));
    CHECK(gpipe.peak_in_flight == m);
  }
  const auto interleaved = simulate_pipeline(PipelineScheduleKind::interleaved, 4, 8, 2, 1.0, 2.0);
  CHECK(interleaved.bubble_fraction == doctest::Approx(3.0 / (2.0 * 8 + 3.0)));
}

TEST_CASE("a pipeline stage receives and sends once per micro-batch each way") {
  auto args = training(4);
  args.pp = 2;
  args.micro_batches = 4;
  args.batch = 4;
  const auto model = build_model_workload(llama8b(), args);
  CHECK(count(model.workload, OpKind::sendrecv) == 4 * 4);
  REQUIRE(model.pipeline.has_value());
  CHECK(model.pipeline->bubble_fraction == doctest::Approx(1.0 / 5.0));
}

TEST_CASE("each stage's graph runs its passes in the schedule's order: 1F1B warms up p - s - 1 forwards") {
  auto args = training(4);
  args.pp = 4;
  args.micro_batches = 8;
  args.batch = 8;
  for (const auto kind : {PipelineScheduleKind::one_f_one_b, PipelineScheduleKind::gpipe}) {
    args.pipeline_schedule = kind;
    const auto model = build_model_workload(llama8b(), args);
    REQUIRE(model.stage_workloads.size() == 4);
    for (std::uint64_t s = 0; s < 4; ++s) {
      CAPTURE(s);
      const Workload& stage = model.stage_workloads[s];
      CHECK(stage.ops.size() == model.workload.ops.size());
      // The passes as their receives appear: "mb3.recv" a forward, "mb3.bwd.recv" a backward.
      std::vector<PipelinePass> passes;
      for (const auto& op : stage.ops) {
        if (op.kind != OpKind::sendrecv || !op.shape.receive) continue;
        CHECK(op.shape.group_stride == 1);  // tp = 1: neighbouring stages are neighbouring ranks
        const bool forward = op.name.find(".bwd.") == std::string::npos;
        passes.push_back({forward, std::stoull(op.name.substr(2)), 0});
      }
      const auto expected = pipeline_order(kind, 4, s, 8, 1);
      REQUIRE(passes.size() == expected.size());
      for (std::size_t k = 0; k < passes.size(); ++k) {
        CHECK(passes[k].forward == expected[k].forward);
        CHECK(passes[k].micro_batch == expected[k].micro_batch);
      }
    }
  }
}

// Every Adam op comes after every backward op and waits for the last compute op of the backward pass (as
// optimizer.step() after loss.backward()), on a single rank (Mixtral: its routed experts included), with
// gradient accumulation over micro-batches, and on each pipeline stage.
static void check_optimizer_after_backward(const Workload& w) {
  std::size_t last_backward = 0, first_adam = w.ops.size(), adams = 0;
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const auto& op = w.ops[i];
    if (op.name.find(".adam") != std::string::npos) {
      first_adam = std::min(first_adam, i);
      ++adams;
    } else if (op.name.find(".bwd") != std::string::npos && !is_collective(op.kind)) {
      last_backward = i;
    }
  }
  REQUIRE(adams > 0);
  CHECK(last_backward < first_adam);
  for (std::size_t i = first_adam; i < w.ops.size(); ++i) {
    const auto& op = w.ops[i];
    if (op.name.find(".adam") == std::string::npos) continue;
    CAPTURE(op.name);
    CHECK(std::find(op.after.begin(), op.after.end(), last_backward) != op.after.end());
  }
}

TEST_CASE("the optimizer step waits for the end of the backward pass") {
  auto mixtral_args = training(2);
  mixtral_args.micro_batches = 2;
  mixtral_args.batch = 2;
  check_optimizer_after_backward(
      build_model_workload(load_model_config(test::workload_path("models/mixtral_8x7b.json")), mixtral_args).workload);
  auto dp = training(2);
  dp.dp = 4;
  dp.zero = 1;
  check_optimizer_after_backward(build_model_workload(llama8b(), dp).workload);
  auto pipeline = training(4);
  pipeline.pp = 2;
  pipeline.dp = 2;
  pipeline.micro_batches = 4;
  pipeline.batch = 4;
  const auto model = build_model_workload(llama8b(), pipeline);
  REQUIRE(model.stage_workloads.size() == 2);
  for (const auto& stage : model.stage_workloads) check_optimizer_after_backward(stage);
}

TEST_CASE("memory per rank: 2 bytes per parameter for inference, 16 for mixed-precision Adam, sharded by ZeRO") {
  const auto config = llama8b();
  const std::uint64_t params = count_model_params(config).total;
  ModelWorkloadArgs infer;
  infer.phase = ModelPhase::decode;
  infer.batch = 4;
  infer.context = 1023;
  const auto m = model_memory_footprint(config, infer);
  CHECK(m.params_bytes == 2 * params);
  // K and V of 8 heads of 128 for 4 x 1024 positions in 32 layers.
  CHECK(m.kv_cache_bytes == 32ULL * 4 * 1024 * 2 * 8 * 128 * 2);
  auto train = training(0);
  train.dp = 8;
  const auto zero0 = model_memory_footprint(config, train);
  CHECK(zero0.params_bytes + zero0.grads_bytes + zero0.optimizer_bytes == 16 * params);
  train.zero = 3;
  const auto zero3 = model_memory_footprint(config, train);
  CHECK(zero3.params_bytes + zero3.grads_bytes + zero3.optimizer_bytes == 16 * params / 8);
  train.recompute = Recompute::full;
  CHECK(model_memory_footprint(config, train).activations_bytes < zero3.activations_bytes);
}
