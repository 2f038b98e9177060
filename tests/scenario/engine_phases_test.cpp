// The engines beside the matrix engine and the kernel schedules, against closed forms on a small device whose rates
// the test sets: a softmax op alone takes the longest of its vector work, its exponentials and its bytes; attention
// with unlimited vector and special-function rates runs at the matrix rate; pingpong never loses to serial and
// neither beats the busiest engine; causal attention executes exactly its non-masked blocks.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "tests/scenario/attention_workload.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {

constexpr double kClockHz = 1e9;

// The test device with a vector engine rated per operation class and a special-function engine.
HardwareParams device_with_engines(double fma_per_cycle, double alu_per_cycle, double special_per_cycle,
                                   test::TestDevice base = {}) {
  base.clock_hz = kClockHz;
  HardwareParams hw = base.build();
  // Rates per class only: the FLOP rates stay the test device's, so the matrix engine keeps running the attention.
  for (auto& engine : hw.compute.engines) {
    if (engine.name != "vector") continue;
    engine.ops_per_cycle = {{EngineOpClass::fp32_fma, fma_per_cycle},
                            {EngineOpClass::fp32_alu, alu_per_cycle},
                            {EngineOpClass::bf16_fma, fma_per_cycle},
                            {EngineOpClass::bf16_alu, alu_per_cycle}};
  }
  EngineParams special;
  special.name = "special_function";
  special.clock_hz = kClockHz;
  special.ops_per_cycle = {{EngineOpClass::exp2, special_per_cycle},
                           {EngineOpClass::reciprocal, special_per_cycle},
                           {EngineOpClass::rsqrt, special_per_cycle}};
  hw.compute.engines.push_back(special);
  return hw;
}

std::size_t add_softmax(test::WorkloadBuilder& builder, std::uint64_t rows, std::uint64_t cols) {
  Op op;
  op.name = "softmax";
  op.kind = OpKind::softmax;
  op.dtype = DataType::bf16;
  op.shape.rows = rows;
  op.shape.cols = cols;
  op.shape.flops_per_element = 5;
  op.inputs = {builder.tensor("scores", {rows, cols})};
  op.outputs = {builder.tensor("probs", {rows, cols})};
  op.bytes_read = rows * cols * 2;
  op.bytes_written = rows * cols * 2;
  op.useful_flops = rows * cols * 5;
  return builder.add(std::move(op));
}

struct SoftmaxCase {
  double fma, alu, special;
};

// Softmax per element: 3 FMA-class and 1 ALU-class ops on the vector engine, 1 exp2 on the special-function engine;
// per row 1 reciprocal (counting.h). Bytes: the scores read and the probabilities written, at the DRAM's rate.
void check_softmax(const SoftmaxCase& rates, const std::string& binding) {
  test::TestDevice base;
  base.units = 4;
  base.dram_channel_bytes_per_s = 50e9;  // 8 channels: 400 GB/s
  const auto hw = device_with_engines(rates.fma, rates.alu, rates.special, base);
  test::WorkloadBuilder builder;
  const std::uint64_t rows = 4096, cols = 1024;
  add_softmax(builder, rows, cols);
  const auto result = run_workload(hw, builder.workload());
  const double n = static_cast<double>(rows * cols);
  const double unit_rate = kClockHz * static_cast<double>(base.units);
  const double vector_s = n * (3.0 / rates.fma + 1.0 / rates.alu) / unit_rate;
  const double special_s = (n + static_cast<double>(rows)) / rates.special / unit_rate;
  const double memory_s = 2.0 * n * 2.0 / 400e9;
  const double expected = std::max({vector_s, special_s, memory_s});
  const double measured = result.ops.at(0).sim_time_s;
  MESSAGE(binding << ": vector " << vector_s << " s, special " << special_s << " s, memory " << memory_s
                  << " s; simulated " << measured << " s");
  CHECK(test::within(measured, expected, 0.02));
}

test::AttentionSpec attention_spec() {
  test::AttentionSpec spec;
  spec.batch = 1;
  spec.heads = 8;
  spec.kv_heads = 8;
  spec.seq_q = spec.seq_kv = 1024;
  spec.head_dim = 64;
  return spec;
}

// The blocks of the test device's attention: 128 x 128 (its 256 KiB scratchpad holds them), 8 row blocks of 8 key
// blocks per head.
constexpr double kBlock = 128;

// Runs the attention ops of `specs` one after another (one stream) with their schedules; returns their statistics.
std::vector<OpRunStats> run_attentions(const HardwareParams& hw, const std::vector<test::AttentionSpec>& specs,
                                       const std::vector<KernelSchedule>& schedules = {}) {
  test::WorkloadBuilder builder;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto op = test::add_attention(builder, "attn" + std::to_string(i), specs[i]);
    if (i < schedules.size()) builder.workload().ops[op].schedule = schedules[i];
  }
  return run_workload(hw, builder.workload()).ops;
}

}  // namespace

TEST_CASE("A softmax op alone takes its vector work's time when the vector engine binds") {
  check_softmax({8, 8, 1024}, "vector");
}

TEST_CASE("A softmax op alone takes its exponentials' time when the special-function engine binds") {
  check_softmax({1024, 1024, 4}, "special_function");
}

TEST_CASE("A softmax op alone takes its bytes' time when the DRAM binds") {
  check_softmax({1024, 1024, 1024}, "memory");
}

TEST_CASE("Attention with unlimited vector and special-function rates runs at the matrix rate") {
  const auto hw = device_with_engines(1e6, 1e6, 1e6);
  const auto stats = run_attentions(hw, {attention_spec()}).at(0);
  // 8 heads x 8 row blocks x 8 key blocks, each 4 x 128 x 128 x 64 FLOPs at 1024 FLOP/cycle on 4 units.
  const double matrix_s = static_cast<double>(stats.executed_flops) / (1024.0 * kClockHz * 4.0);
  CHECK(stats.executed_flops == static_cast<Flops>(8 * 8 * 8 * 4 * kBlock * kBlock * 64));
  MESSAGE("matrix-only " << matrix_s << " s, simulated " << stats.sim_time_s << " s");
  CHECK(test::within(stats.sim_time_s, matrix_s, 0.01));
}

TEST_CASE("pingpong is no slower than serial, and both take at least the busiest engine's time") {
  // Per block: matrix 4096 cycles; exponentials 128 x 128 + 128 at 4 per cycle, 4128 cycles.
  const auto hw = device_with_engines(1024, 1024, 4);
  const auto ops =
      run_attentions(hw, {attention_spec(), attention_spec()}, {KernelSchedule::serial, KernelSchedule::pingpong});
  const auto& stats = ops.at(0);
  const Seconds serial = ops.at(0).sim_time_s, pingpong = ops.at(1).sim_time_s;
  const double units_rate = 4.0 * kClockHz;
  const double matrix_s = static_cast<double>(stats.executed_flops) / (1024.0 * units_rate);
  const double special_s = static_cast<double>(stats.exp2_ops) / (4.0 * units_rate) +
                           static_cast<double>(stats.reciprocal_ops) / (4.0 * units_rate);
  MESSAGE("matrix " << matrix_s << " s, special-function " << special_s << " s; serial " << serial << " s, pingpong "
                    << pingpong << " s");
  CHECK(stats.exp2_ops == static_cast<std::uint64_t>(8 * 8 * 8 * (kBlock * kBlock + kBlock)));
  CHECK(pingpong <= serial);
  CHECK(pingpong >= std::max(matrix_s, special_s));
  CHECK(serial >= std::max(matrix_s, special_s));
  // One slot per unit: serial runs the softmax after each block's QK^T, so its time is about the sum of the two.
  CHECK(serial >= 0.95 * (matrix_s + special_s));
  CHECK(pingpong < 0.85 * serial);
}

TEST_CASE("Causal attention executes exactly the blocks that are not fully masked") {
  auto causal_spec = attention_spec();
  causal_spec.causal = true;
  const auto hw = device_with_engines(1024, 1024, 16);
  const auto ops = run_attentions(hw, {attention_spec(), causal_spec});
  const auto& full = ops.at(0);
  const auto& causal = ops.at(1);
  // Row block i of 8 sees key blocks 0..i: 36 of the 64 blocks per head, each computed whole (the diagonal ones too).
  const double block_flops = 4 * kBlock * kBlock * 64;
  CHECK(full.executed_flops == static_cast<Flops>(8 * 64 * block_flops));
  CHECK(causal.executed_flops == static_cast<Flops>(8 * 36 * block_flops));
  CHECK(causal.executed_flops > causal.useful_flops);
  CHECK(causal.exp2_ops == static_cast<std::uint64_t>(8 * 36 * (kBlock * kBlock + kBlock)));
}
