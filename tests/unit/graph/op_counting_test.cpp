// Closed-form counts: GEMM FLOPs 2MNK, compulsory OI, conv, attention, row-wise ops, collectives' ring bytes.
#include <doctest/doctest.h>

#include "sim/graph/counting.h"
#include "sim/graph/workload.h"
#include "tests/unit/graph/graph_test_files.h"

using namespace roofsim;

namespace {

Workload load_text(const std::string& name, const std::string& text, std::vector<Override> overrides = {}) {
  const auto dir = test::scratch_dir("graph-" + name);
  const auto hardware = load_hardware(test::write_test_hardware(dir));
  return load_workload(test::write_file(dir, name + ".toml", text), overrides, hardware);
}

double oi(const Op& op) {
  return static_cast<double>(op.useful_flops) / static_cast<double>(op.compulsory_bytes());
}

}  // namespace

TEST_CASE("GEMM: FLOPs are 2MNK and fp16 compulsory OI is 2MNK / (2(MK + KN + MN))") {
  const auto workload = load_text("gemm", R"(
[workload]
name = "g"
[params]
size = 8192
[[op]]
name = "square"
kind = "gemm"
m = "size"
n = "size"
k = "size"
[[op]]
name = "skinny"
kind = "gemm"
m = "size"
n = 128
k = "size"
[[op]]
name = "batched"
kind = "gemm"
batch = 4
m = 100
n = 300
k = 70
dtype = "fp32"
)");
  const Op& square = *workload.find_op("square");
  CHECK(square.useful_flops == 2ULL * 8192 * 8192 * 8192);
  CHECK(square.bytes_read == 2ULL * 2 * 8192 * 8192);
  CHECK(square.bytes_written == 2ULL * 8192 * 8192);
  CHECK(oi(square) == doctest::Approx(8192.0 / 3.0));
  CHECK(oi(square) == doctest::Approx(2730.7).epsilon(1e-4));
  const Op& skinny = *workload.find_op("skinny");
  CHECK(skinny.useful_flops == 2ULL * 8192 * 128 * 8192);
  CHECK(oi(skinny) == doctest::Approx(2.0 * 8192 * 128 * 8192 / (2.0 * (8192.0 * 8192 + 8192.0 * 128 + 8192.0 * 128))));
  CHECK(oi(skinny) == doctest::Approx(124.1).epsilon(1e-3));
  const Op& batched = *workload.find_op("batched");
  CHECK(batched.useful_flops == 2ULL * 4 * 100 * 300 * 70);
  CHECK(batched.compulsory_bytes() == 4ULL * 4 * (100 * 70 + 70 * 300 + 100 * 300));
  CHECK(batched.analytic_row_hit_rate == 1.0);
  CHECK(batched.network_bytes == 0);
}

TEST_CASE("conv2d: FLOPs 2 N K P Q C R S with the output size from stride and padding") {
  const auto workload = load_text("conv", R"(
[workload]
name = "c"
[[op]]
name = "stem"
kind = "conv2d"
batch = 2
channels = 3
height = 224
width = 224
filters = 64
kernel_h = 7
stride = 2
padding = 3
)");
  const Op& stem = workload.ops.front();
  // P = Q = (224 + 6 - 7) / 2 + 1 = 112 (He et al. 2016, Table 1: conv1 output 112x112).
  CHECK(stem.useful_flops == 2ULL * 2 * 64 * 112 * 112 * 3 * 7 * 7);
  CHECK(stem.shape.m == 2ULL * 112 * 112);
  CHECK(stem.shape.n == 64);
  CHECK(stem.shape.k == 3ULL * 7 * 7);
  CHECK(stem.bytes_read == 2ULL * (2 * 3 * 224 * 224 + 64 * 3 * 7 * 7));
  CHECK(stem.bytes_written == 2ULL * 2 * 64 * 112 * 112);
}

TEST_CASE("attention: 2 b h sq skv d for QK^T and PV each, causal counts the lower triangle") {
  const auto workload = load_text("attention", R"(
[workload]
name = "a"
[[op]]
name = "full"
kind = "attention"
batch = 2
heads = 8
seq_q = 100
head_dim = 64
[[op]]
name = "causal"
kind = "attention"
batch = 2
heads = 8
seq_q = 100
head_dim = 64
causal = true
[[op]]
name = "naive_gqa"
kind = "attention"
batch = 1
heads = 8
kv_heads = 2
seq_q = 10
seq_kv = 30
head_dim = 64
causal = true
attention = "naive"
)");
  const Op& full = *workload.find_op("full");
  CHECK(full.useful_flops == 2 * (2ULL * 2 * 8 * 100 * 100 * 64));
  const Op& causal = *workload.find_op("causal");
  CHECK(causal.useful_flops == 4ULL * 2 * 8 * (100 * 101 / 2) * 64);
  // Compulsory: Q, K, V read once, O written once, all b x h x s x d.
  CHECK(full.bytes_read == 3ULL * 2 * 2 * 8 * 100 * 64);
  CHECK(full.bytes_written == 2ULL * 2 * 8 * 100 * 64);
  CHECK(full.scratch.empty());
  const Op& naive = *workload.find_op("naive_gqa");
  // Ten queries at the end of 30 keys: 10 * 20 + 10 * 11 / 2 pairs.
  CHECK(naive.useful_flops == 4ULL * 8 * (10 * 20 + 55) * 64);
  // The score matrix is scratch, not compulsory: K and V have 2 heads of 30 positions.
  CHECK(naive.bytes_read == 2ULL * (8 * 10 * 64 + 2 * 2 * 30 * 64));
  REQUIRE(naive.scratch.size() == 1);
  CHECK(workload.tensors[naive.scratch.front()].bytes == 2ULL * 8 * 10 * 30);
}

TEST_CASE("row-wise and element-wise ops: FLOPs per element and a stream's bytes") {
  const auto workload = load_text("rowwise", R"(
[workload]
name = "r"
[[op]]
name = "softmax"
kind = "softmax"
rows = 10
cols = 20
[[op]]
name = "layernorm"
kind = "layernorm"
rows = 10
cols = 20
[[op]]
name = "rmsnorm"
kind = "rmsnorm"
rows = 10
cols = 20
[[op]]
name = "sum"
kind = "reduction"
dtype = "fp32"
rows = 10
cols = 20
[[op]]
name = "triad"
kind = "elementwise"
dtype = "fp32"
elements = 1000
flops_per_element = 2
inputs = ["sum.out", "softmax.out"]
[[op]]
name = "gather"
kind = "embedding"
rows = 7
cols = 16
vocab = 1000
)");
  CHECK(workload.find_op("softmax")->useful_flops == 5 * 200);
  CHECK(workload.find_op("layernorm")->useful_flops == 8 * 200);
  CHECK(workload.find_op("rmsnorm")->useful_flops == 4 * 200);
  const Op& sum = *workload.find_op("sum");
  CHECK(sum.useful_flops == 200);
  CHECK(sum.bytes_read == 4 * 200);
  CHECK(sum.bytes_written == 4 * 10);
  const Op& triad = *workload.find_op("triad");
  CHECK(triad.useful_flops == 2000);
  CHECK(triad.bytes_read == 4 * 10 + 2 * 200);  // the declared-by-producer inputs, as they are
  CHECK(triad.bytes_written == 4 * 1000);
  const Op& gather = *workload.find_op("gather");
  CHECK(gather.useful_flops == 0);
  CHECK(gather.bytes_read == 2 * 7 * 16);  // only the gathered rows of the 1000-row table
  CHECK(gather.analytic_row_hit_rate == 0.0);
}

TEST_CASE("collectives: ring bytes per device, (p-1)/p factors, one device sends nothing") {
  CHECK(ring_network_bytes(OpKind::allreduce, 800, 8) == 1400);
  CHECK(ring_network_bytes(OpKind::allgather, 800, 8) == 700);
  CHECK(ring_network_bytes(OpKind::reducescatter, 800, 8) == 700);
  CHECK(ring_network_bytes(OpKind::alltoall, 800, 8) == 700);
  CHECK(ring_network_bytes(OpKind::broadcast, 800, 8) == 800);
  CHECK(ring_network_bytes(OpKind::sendrecv, 800, 2) == 800);
  CHECK(ring_network_bytes(OpKind::allreduce, 800, 1) == 0);
  CHECK(ring_network_bytes(OpKind::gemm, 800, 8) == 0);
  // Exact without a 128-bit intermediate: 2 (p-1)/p of nearly 2^64 bytes / 2.
  const Bytes huge = (Bytes{1} << 62) + 3;
  CHECK(ring_network_bytes(OpKind::allreduce, huge, 4) == (huge / 4) * 6 + (huge % 4) * 6 / 4);

  const auto workload = load_text("collectives", R"(
[workload]
name = "c"
devices = "p"
[params]
p = 4
[[op]]
name = "ar"
kind = "allreduce"
dtype = "fp32"
message_bytes = 4096
[[op]]
name = "ag"
kind = "allgather"
dtype = "fp32"
message_bytes = 4096
[[op]]
name = "rs"
kind = "reducescatter"
dtype = "fp32"
message_bytes = 4096
[[op]]
name = "single"
kind = "allreduce"
message_bytes = 4096
group = 1
)");
  const Op& ar = *workload.find_op("ar");
  CHECK(ar.shape.group == 4);
  CHECK(ar.network_bytes == 2 * 3 * 4096 / 4);
  CHECK(ar.useful_flops == 3 * 1024 / 4);  // the reduce-scatter additions of one rank
  CHECK(ar.compulsory_bytes() == 2 * 4096);
  const Op& ag = *workload.find_op("ag");
  CHECK(ag.network_bytes == 3 * 4096 / 4);
  CHECK(ag.bytes_read == 4096 / 4);
  CHECK(ag.bytes_written == 4096);
  const Op& rs = *workload.find_op("rs");
  CHECK(rs.network_bytes == 3 * 4096 / 4);
  CHECK(rs.bytes_read == 4096);
  CHECK(rs.bytes_written == 4096 / 4);  // each rank keeps its reduced quarter
  CHECK(workload.find_op("single")->network_bytes == 0);
}
