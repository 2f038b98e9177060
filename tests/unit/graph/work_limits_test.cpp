// The work a workload takes on is known before it is built or simulated: a template's op count from its counts alone
// (so a million layers are refused before they expand), and a run's tiles and memory requests from the lowering's
// closed forms, which give the estimate a long run announces.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/graph/templates.h"
#include "sim/graph/work_estimate.h"
#include "sim/graph/workload.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

TemplateArgs args_of(TemplateKind kind, std::uint64_t layers) {
  TemplateArgs args;
  args.kind = kind;
  args.name = "t";
  args.hidden = 256;
  args.heads = 4;
  args.ffn = 1024;
  args.seq = 16;
  args.layers = layers;
  return args;
}

}  // namespace

TEST_CASE("a template's op count from its counts is the number of ops it expands to") {
  for (const std::uint64_t layers : {1, 2, 7}) {
    CAPTURE(layers);
    auto block = args_of(TemplateKind::transformer_block, layers);
    CHECK(template_op_count(block) == expand_template(block).ops.size());
    block.tensor_parallel = 2;
    CHECK(template_op_count(block) == expand_template(block).ops.size());
    const auto mlp = args_of(TemplateKind::mlp, layers);
    CHECK(template_op_count(mlp) == expand_template(mlp).ops.size());
    auto stage = args_of(TemplateKind::pipeline_stage, layers);
    stage.micro_batches = 3;
    CHECK(template_op_count(stage) == expand_template(stage).ops.size());
    stage.training = true;
    CHECK(template_op_count(stage) == expand_template(stage).ops.size());
    auto step = args_of(TemplateKind::dp_training_step, layers);
    step.bucket_bytes = 1;  // a bucket per gradient: the most ops the template can make
    CHECK(template_op_count(step) <= expand_template(step).ops.size());
    step.bucket_bytes = 1ULL << 40;  // one bucket: the fewest
    CHECK(template_op_count(step) == expand_template(step).ops.size());
  }
  auto huge = args_of(TemplateKind::pipeline_stage, 1ULL << 40);
  huge.micro_batches = 1ULL << 40;
  CHECK(template_op_count(huge) == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("a workload over the op limit is refused before its templates expand, naming the limit and --allow-large") {
  const auto dir = test::scratch_dir("work-limits-ops");
  const auto file = test::write_file(dir / "w.toml", R"([workload]
name = "w"
[[template]]
name = "stage"
kind = "pipeline_stage"
hidden = 64
layers = 10000
micro_batches = 10000
training = true
)");
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    (void)build_workload(file, {});
  } catch (const InputError& error) {
    message = error.what();
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  CHECK(message.find("w.toml:3:1") != std::string::npos);
  CHECK(message.find("template 'stage'") != std::string::npos);
  CHECK(message.find("800040000 ops, above the limit of 100000 ops") != std::string::npos);
  CHECK(message.find("--allow-large") != std::string::npos);
  WorkLimits small;
  small.ops = 2;
  CHECK_THROWS_AS((void)build_workload(test::workload_path("gemm.toml"), {}, kTensorAlignmentBytes, small), InputError);
  CHECK(build_workload(test::workload_path("gemm.toml"), {}).ops.size() == 4);
}

TEST_CASE("a run's estimate counts its tiles and requests, and only a long run is announced") {
  const auto hardware = load_hardware(test::config_path("H100-SXM5.toml"));
  const auto small = load_workload(test::workload_path("gemm.toml"), {}, hardware);
  const auto estimate = estimate_work(small, hardware);
  CHECK(estimate.ops == 4);
  CHECK(estimate.tiles == 2656);  // the tiles of the bundled run's report.json (the GEMMs' chosen decompositions)
  CHECK(estimate.requests > estimate.tiles);
  CHECK(estimate.units == 132);
  CHECK_FALSE(worth_announcing(estimate));
  CHECK(estimate_work(small, hardware, 8).tiles == 8 * estimate.tiles);

  const auto large = load_workload(test::workload_path("gemm.toml"), {Override{"params.size", "65536"}}, hardware);
  const auto long_run = estimate_work(large, hardware);
  CHECK(worth_announcing(long_run));
  const auto text = estimate_text(long_run);
  CHECK(text.find("min") != std::string::npos);
  CHECK(text.find(std::to_string(long_run.tiles) + " tiles") != std::string::npos);
  CHECK(text.find("rough model") != std::string::npos);
}
