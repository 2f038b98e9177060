// Templates against closed forms: a GPT-3 block's FLOPs (Narayanan et al. 2021), Llama decode's weight and KV-cache
// bytes, a data-parallel step's GEMM FLOPs and AllReduce bytes; a 175B-parameter stack without overflow.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/graph/workload.h"
#include "tests/unit/graph/graph_test_files.h"

using namespace roofsim;

namespace {

Workload load_text(const std::string& name, const std::string& text, const std::vector<Override>& overrides = {}) {
  const auto dir = test::scratch_dir("graph-" + name);
  const auto hardware = load_hardware(test::write_test_hardware(dir));
  return load_workload(test::write_file(dir, name + ".toml", text), overrides, hardware);
}

Flops flops_of(const Workload& workload, std::initializer_list<OpKind> kinds) {
  Flops total = 0;
  for (const auto& op : workload.ops) {
    for (const auto kind : kinds) {
      if (op.kind == kind) total += op.useful_flops;
    }
  }
  return total;
}

std::size_t count_of(const Workload& workload, OpKind kind) {
  std::size_t count = 0;
  for (const auto& op : workload.ops) count += op.kind == kind ? 1 : 0;
  return count;
}

std::string gpt3_block(const std::string& causal) {
  return R"(
[workload]
name = "gpt3"
[params]
batch = 1
seq = 2048
hidden = 12288
heads = 96
layers = 1
[[template]]
name = "block"
kind = "transformer_block"
hidden = "hidden"
heads = "heads"
seq = "seq"
batch = "batch"
layers = "layers"
causal = )" +
         causal + "\n";
}

}  // namespace

TEST_CASE("GPT-3 block prefill: GEMM and attention FLOPs are 24 b s h^2 + 4 b s^2 h") {
  const std::uint64_t b = 1, s = 2048, h = 12288;
  const auto workload = load_text("gpt3-full", gpt3_block("false"));
  CHECK(count_of(workload, OpKind::gemm) == 4);
  CHECK(count_of(workload, OpKind::attention) == 1);
  CHECK(count_of(workload, OpKind::layernorm) == 2);
  CHECK(count_of(workload, OpKind::elementwise) == 3);
  const Flops closed_form = 24 * b * s * h * h + 4 * b * s * s * h;
  CHECK(flops_of(workload, {OpKind::gemm, OpKind::attention}) == closed_form);
  // The rest: two layernorms (8/element), two residual adds (1) and GELU over the 4h MLP width (9).
  CHECK(workload.total_useful_flops() == closed_form + 2 * 8 * b * s * h + 2 * b * s * h + 9 * b * s * 4 * h);
  // Weights: QKV 3h^2, output h^2, MLP 8h^2, in fp16.
  Bytes weight_bytes = 0;
  for (const auto& tensor : workload.tensors) {
    if (tensor.name.find(".w_") != std::string::npos) weight_bytes += tensor.bytes;
  }
  CHECK(weight_bytes == 2 * 12 * h * h);
}

TEST_CASE("causal attention halves the score work: 2 b h s (s + 1) instead of 4 b s^2 h") {
  const std::uint64_t b = 1, s = 2048, h = 12288;
  const auto workload = load_text("gpt3-causal", gpt3_block("true"));
  CHECK(flops_of(workload, {OpKind::attention}) == 2 * b * h * s * (s + 1));
}

TEST_CASE("a 175B-parameter model (96 GPT-3 blocks) is counted exactly in 64 bits") {
  const std::uint64_t b = 1, s = 2048, h = 12288, layers = 96;
  const auto workload = load_text("gpt3-96", gpt3_block("false"), {{"params.layers", "96"}});
  CHECK(workload.ops.size() == 96 * 10);
  const Flops per_layer = 24 * b * s * h * h + 4 * b * s * s * h + (16 + 2 + 36) * b * s * h;
  CHECK(workload.total_useful_flops() == layers * per_layer);
  Bytes weight_bytes = 0;
  for (const auto& tensor : workload.tensors) {
    if (tensor.name.find(".w_") != std::string::npos) weight_bytes += tensor.bytes;
  }
  CHECK(weight_bytes == layers * 2 * 12 * h * h);  // 173.9e9 parameters in fp16: 348 GB, far beyond 32 bits
  CHECK(weight_bytes > 2 * 170'000'000'000ULL);
  CHECK(workload.footprint_bytes > weight_bytes);
  CHECK(workload.total_compulsory_bytes() > weight_bytes);
}

TEST_CASE("Llama-2-7B decode: every weight and the KV cache are read once, with GQA and SwiGLU shapes") {
  const std::uint64_t h = 4096, f = 11008, context = 4096, d = 128;
  const auto workload = load_text("llama7b", R"(
[workload]
name = "llama"
[params]
context = 4096
[[template]]
name = "dec"
kind = "transformer_block"
phase = "decode"
hidden = 4096
heads = 32
ffn = 11008
context = "context"
norm = "rmsnorm"
activation = "silu"
gated = true
)");
  CHECK(count_of(workload, OpKind::rmsnorm) == 2);
  const Op& qkv = *workload.find_op("dec.qkv");
  CHECK(qkv.shape.m == 1);
  CHECK(qkv.shape.n == 3 * h);
  const Op& up = *workload.find_op("dec.mlp.up");
  CHECK(up.shape.n == 2 * f);
  CHECK(up.bytes_read == 2 * (h + h * 2 * f));
  const Op& attention = *workload.find_op("dec.attn");
  CHECK(attention.shape.seq_q == 1);
  CHECK(attention.shape.seq_kv == context);
  CHECK(attention.useful_flops == 4 * 32 * context * d);
  CHECK(attention.bytes_read == 2 * (3 * h + 2 * 32 * context * d));
  Bytes weight_bytes = 0;
  for (const auto& tensor : workload.tensors) {
    if (tensor.name.find(".w_") != std::string::npos) weight_bytes += tensor.bytes;
  }
  CHECK(weight_bytes == 2 * (h * 3 * h + h * h + 3 * h * f));  // 202,375,168 parameters per layer
  // Grouped-query attention: 8 KV heads of a 64-head, 8192-wide model.
  const auto gqa = load_text("llama70b", R"(
[workload]
name = "llama70"
[[template]]
name = "dec"
kind = "transformer_block"
phase = "decode"
hidden = 8192
heads = 64
kv_heads = 8
ffn = 28672
context = 4096
dtype = "bf16"
)");
  CHECK(gqa.find_op("dec.qkv")->shape.n == 8192 + 2 * 8 * 128);
  CHECK(gqa.find_tensor("dec.k_cache")->bytes == 2ULL * 8 * 4096 * 128);
}

TEST_CASE("data-parallel training step: backward is twice forward and each gradient is all-reduced") {
  const std::uint64_t tokens = 2 * 64, h = 256, f = 1024, layers = 3, devices = 4;
  const auto workload = load_text("dp", R"(
[workload]
name = "dp"
devices = 4
[[template]]
name = "t"
kind = "dp_training_step"
hidden = 256
ffn = 1024
batch = 2
seq = 64
layers = 3
dtype = "bf16"
bucket_size = "512KiB"
)");
  // Forward 4 T h f per layer; backward 8 T h f, less the first layer's unneeded input gradient (2 T h f).
  CHECK(flops_of(workload, {OpKind::gemm}) == layers * 12 * tokens * h * f - 2 * tokens * h * f);
  CHECK(count_of(workload, OpKind::allreduce) == 2 * layers);
  for (const auto& op : workload.ops) {
    if (op.kind != OpKind::allreduce) continue;
    CHECK(op.shape.group == devices);
    CHECK(op.network_bytes == 2 * (devices - 1) * (h * f * 2) / devices);
  }
  // An AllReduce may start as soon as its gradient exists: it depends on one weight-gradient GEMM only.
  // Buckets of 512 KiB hold one 256 x 1024 bf16 gradient each; the first is the last layer's w_down.
  const Op& first_reduce = *workload.find_op("t.bucket0.allreduce");
  REQUIRE(first_reduce.after.size() == 1);
  CHECK(workload.ops[first_reduce.after.front()].name == "t.l2.bwd.down.wgrad");
}

TEST_CASE("data-parallel gradient buckets fill in backward order until they hold bucket_size") {
  const std::uint64_t h = 256, f = 1024, devices = 4;
  const auto workload = load_text("dp-buckets", R"(
[workload]
name = "dp"
devices = 4
[[template]]
name = "t"
kind = "dp_training_step"
hidden = 256
ffn = 1024
layers = 3
dtype = "bf16"
bucket_size = "1MiB"
)");
  // Six gradients of 512 KiB in buckets of at least 1 MiB: three buckets of two, each waiting for both gradients.
  REQUIRE(count_of(workload, OpKind::allreduce) == 3);
  const Op& bucket = *workload.find_op("t.bucket1.allreduce");
  CHECK(bucket.shape.message_bytes == 2 * h * f * 2);
  CHECK(bucket.network_bytes == 2 * (devices - 1) * (2 * h * f * 2) / devices);
  std::vector<std::string> producers;
  for (const auto index : bucket.after) producers.push_back(workload.ops[index].name);
  std::sort(producers.begin(), producers.end());
  CHECK(producers == std::vector<std::string>{"t.l1.bwd.down.wgrad", "t.l1.bwd.up.wgrad"});
  // The default is PyTorch DDP's 25 MiB: all six gradients (3 MiB) in one bucket.
  const auto whole = load_text("dp-default", R"(
[workload]
name = "dp"
devices = 4
[[template]]
name = "t"
kind = "dp_training_step"
hidden = 256
ffn = 1024
layers = 3
dtype = "bf16"
)");
  CHECK(count_of(whole, OpKind::allreduce) == 1);
}

TEST_CASE("templates check their arguments and chain with hand-written ops") {
  CHECK_THROWS_WITH_AS(load_text("bad-heads",
                                 "[workload]\nname = \"x\"\n[[template]]\nname = \"blk\"\n"
                                 "kind = \"transformer_block\"\nhidden = 100\nheads = 3\n"),
                       doctest::Contains("template 'blk'"), InputError);
  const auto workload = load_text("chained", R"(
[workload]
name = "x"
[[tensor]]
name = "tokens"
shape = [16, 64]
[[template]]
name = "mlp"
kind = "mlp"
hidden = 64
seq = 16
input = "tokens"
output = "y"
resident_weights = true
[[op]]
name = "head"
kind = "gemm"
m = 16
n = 10
k = 64
inputs = ["y", "w_head"]
[[tensor]]
name = "w_head"
shape = [64, 10]
)");
  CHECK(workload.ops.back().name == "head");
  CHECK(workload.find_op("mlp.up")->pos.line == 7);  // template ops point at their [[template]] (line 7)
  CHECK(workload.find_op("mlp.up")->resident_bytes_read == 2 * 64 * 256);
  CHECK(workload.ops.back().after == std::vector<std::size_t>{2});
  CHECK(workload.find_op("mlp.up")->shape.n == 256);
}
