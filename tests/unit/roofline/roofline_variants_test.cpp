// The six roofline variants against their closed forms (DESIGN.md section 5).
#include <doctest/doctest.h>

#include <cmath>

#include "sim/roofline/roofline.h"
#include "tests/unit/roofline/roofline_test_device.h"

using namespace roofsim;
using roofsim::test::op_input;
using roofsim::test::simple_device;

TEST_CASE("classic: 2000 TFLOP/s and 1 TB/s give 1 TFLOP/s at OI = 1 - 500 TFLOP/s and 4 TB/s give 4 TFLOP/s") {
  const auto fast_compute = simple_device(2000e12, 1e12);
  const auto a = evaluate_roofline(fast_compute, op_input(fast_compute, 1e12, 1e12));
  CHECK(a.ceilings.classic.flops_per_s == doctest::Approx(1e12));
  CHECK(a.bound_by == "memory:dram");

  const auto fast_memory = simple_device(500e12, 4e12);
  const auto b = evaluate_roofline(fast_memory, op_input(fast_memory, 1e12, 1e12));
  CHECK(b.ceilings.classic.flops_per_s == doctest::Approx(4e12));
  // Above the ridge (OI = 125) the compute line binds.
  const auto c = evaluate_roofline(fast_memory, op_input(fast_memory, 1e12, 1e12 / 1000));
  CHECK(c.ceilings.classic.flops_per_s == doctest::Approx(500e12));
  CHECK(c.bound_by == "compute:fp16");
  CHECK(c.binding == Variant::classic);
}

TEST_CASE("without cap or network or latency or launch limits every variant equals classic and classic binds") {
  const auto device = simple_device(1000e12, 2e12);
  for (double oi : {0.01, 1.0, 500.0, 1e5}) {
    const auto result = evaluate_roofline(device, op_input(device, 1e12, 1e12 / oi));
    for (const auto variant : kAllVariants) {
      CHECK(result.ceilings[variant].flops_per_s == doctest::Approx(result.ceilings.classic.flops_per_s));
    }
    CHECK(result.binding == Variant::classic);
  }
}

TEST_CASE("hierarchical: a level whose bytes x bandwidth is the tightest binds / naming it") {
  auto device = simple_device(1000e12, 2e12);
  device.levels.insert(device.levels.begin(), RoofLevel{"l2", 5e12, 0.0, true});
  auto input = op_input(device, 1e12, 1e9);  // OI_dram = 1000: compute-bound classically
  input.bytes[0].bytes = 1000000000000ULL;   // l2 sees 1e12 B: OI_l2 = 1 -> 5 TFLOP/s
  const auto result = evaluate_roofline(device, input);
  CHECK(result.ceilings.classic.flops_per_s == doctest::Approx(1000e12));
  CHECK(result.ceilings.hierarchical.flops_per_s == doctest::Approx(5e12));
  CHECK(result.binding == Variant::hierarchical);
  CHECK(result.bound_by == "memory:l2");
}

TEST_CASE("DRAM-aware: B(h) = min(B_hit, B_miss / (1 - h)) times OI_dram") {
  auto device = simple_device(1000e12, 3e12);
  DramRowBandwidth rows;
  rows.peak_bytes_per_s = 3e12;
  rows.all_hit_bytes_per_s = 2.7e12;
  rows.all_miss_bytes_per_s = 0.9e12;
  device.dram_rows = rows;
  auto input = op_input(device, 1e12, 1e11);  // OI = 10
  input.row_hit_rate = 0.25;
  const double blended = 0.9e12 / 0.75;  // the ACTs bind below h = 1 - 0.9 / 2.7
  const auto result = evaluate_roofline(device, input);
  CHECK(result.ceilings.dram.flops_per_s == doctest::Approx(10 * blended));
  CHECK(result.binding == Variant::dram);
  CHECK(result.bound_by == "dram-rows");
  input.row_hit_rate = 0.0;
  CHECK(dram_ceiling(device, input).flops_per_s == doctest::Approx(10 * 0.9e12));
  input.row_hit_rate = 0.9;  // the column rate binds
  CHECK(dram_ceiling(device, input).flops_per_s == doctest::Approx(10 * 2.7e12));
  // Far above the ridge the rows do not matter.
  auto compute_bound = op_input(device, 1e12, 1e6);
  compute_bound.row_hit_rate = 0.0;
  CHECK(dram_ceiling(device, compute_bound).flops_per_s == doctest::Approx(1000e12));
  CHECK(dram_ceiling(device, compute_bound).bound_by == "compute:fp16");
}

TEST_CASE("latency-aware: units x outstanding x request_bytes / latency x OI when below B x OI") {
  auto device = simple_device(1000e12, 3.35e12);
  device.bytes_in_flight = 132ULL * 2 * 4096;  // 1 081 344 B
  device.memory_latency_s = 500e-9;            // -> 2.163 TB/s < 3.35 TB/s
  const double little = 132.0 * 2 * 4096 / 500e-9;
  for (double oi : {0.1, 1.0, 10.0, 100.0}) {
    const auto result = evaluate_roofline(device, op_input(device, 1e12, 1e12 / oi));
    CHECK(result.ceilings.latency.flops_per_s == doctest::Approx(std::min(1000e12, little * oi)));
    CHECK(result.ceilings.classic.flops_per_s == doctest::Approx(std::min(1000e12, 3.35e12 * oi)));
    CHECK(result.binding == Variant::latency);
    CHECK(result.bound_by == "latency");
  }
  // With more requests in flight Little's bandwidth exceeds B: the ceiling is classic.
  device.bytes_in_flight = 132ULL * 64 * 4096;
  const auto plenty = evaluate_roofline(device, op_input(device, 1e12, 1e12));
  CHECK(plenty.ceilings.latency.flops_per_s == doctest::Approx(3.35e12));
  CHECK(plenty.binding == Variant::classic);
}

TEST_CASE("latency-aware: no op is faster than its launch latency") {
  auto device = simple_device(1000e12, 3e12);
  device.launch_latency_s = 4e-6;
  const auto tiny = evaluate_roofline(device, op_input(device, 1e6, 1e3));  // 1 MFLOP: 1e6 / 4 us = 250 GFLOP/s
  CHECK(tiny.ceilings.latency.flops_per_s == doctest::Approx(2.5e11));
  CHECK(tiny.binding == Variant::latency);
  CHECK(tiny.bound_by == "launch");
  const auto big = evaluate_roofline(device, op_input(device, 1e15, 1e12));
  CHECK(big.binding == Variant::classic);
}

TEST_CASE("communication-aware: the lower of classic and OI_net x B_net") {
  auto device = simple_device(1000e12, 3e12);
  device.network_bandwidth_bytes_per_s = 450e9;
  auto input = op_input(device, 1e12, 1e9);  // OI_dram = 1000: compute-bound
  input.network_bytes = 1000000000;          // OI_net = 1000 -> 450 TFLOP/s
  const auto result = evaluate_roofline(device, input);
  CHECK(result.ceilings.comm.flops_per_s == doctest::Approx(450e12));
  CHECK(result.binding == Variant::comm);
  CHECK(result.bound_by == "network");
  input.network_bytes = 0;
  CHECK(comm_ceiling(device, input).flops_per_s == doctest::Approx(1000e12));
}

TEST_CASE("binding: the slowest ceiling with ties in the order classic hierarchical dram latency power comm") {
  // An op of 10 FLOPs: each ceiling's rate is 10 / its time.
  Ceilings c;
  c.classic = {10, 1.0, "compute:fp16"};
  c.hierarchical = {10, 1.0, "compute:fp16"};
  c.dram = {10, 1.0, "compute:fp16"};
  c.latency = {10, 1.0, "compute:fp16"};
  c.power = {10, 1.0, "compute:fp16"};
  c.comm = {10, 1.0, "compute:fp16"};
  CHECK(binding_variant(c) == Variant::classic);
  c.comm = {5, 2.0, "network"};
  CHECK(binding_variant(c) == Variant::comm);
  c.power = {5, 2.0, "power"};
  CHECK(binding_variant(c) == Variant::power);
  c.latency = {5, 2.0, "latency"};
  CHECK(binding_variant(c) == Variant::latency);
  c.dram = {5 * (1 + 1e-12), 2.0 * (1 - 1e-12), "dram-rows"};  // equal within rounding: the earlier wins
  CHECK(binding_variant(c) == Variant::dram);
  c.hierarchical = {4, 2.5, "memory:l2"};
  CHECK(binding_variant(c) == Variant::hierarchical);
}

TEST_CASE("every ceiling as a time: FLOPs / P and bytes / B, the longest binds, and rate x time = FLOPs") {
  auto device = simple_device(1000e12, 2e12);
  device.network_bandwidth_bytes_per_s = 100e9;
  auto input = op_input(device, 1e12, 1e9);  // 1 ms of compute, 0.5 ms of DRAM
  input.network_bytes = 50000000;            // 0.5 ms on the network
  auto result = evaluate_roofline(device, input);
  CHECK(result.ceilings.classic.time_s == doctest::Approx(1e-3));
  CHECK(result.ceilings.comm.time_s == doctest::Approx(1e-3));
  CHECK(result.binding == Variant::classic);
  CHECK(result.bound_by == "compute:fp16");
  input.network_bytes = 300000000;  // 3 ms on the network
  result = evaluate_roofline(device, input);
  CHECK(result.ceilings.comm.time_s == doctest::Approx(3e-3));
  CHECK(result.binding == Variant::comm);
  for (const auto variant : kAllVariants) {
    CHECK(result.ceilings[variant].flops_per_s * result.ceilings[variant].time_s == doctest::Approx(1e12));
  }
}

TEST_CASE("an op without FLOPs binds by time: a collective on the network, a copy on the memory") {
  auto device = simple_device(1000e12, 2e12);
  device.network_bandwidth_bytes_per_s = 100e9;
  // An all-gather that reads and writes 2 GB of DRAM (1 ms) and sends 1 GB over a 100 GB/s link (10 ms).
  auto gather = op_input(device, 0, 2e9);
  gather.network_bytes = 1000000000;
  const auto collective = evaluate_roofline(device, gather);
  CHECK(collective.binding == Variant::comm);
  CHECK(collective.bound_by == "network");
  CHECK(collective.ceilings.comm.time_s == doctest::Approx(10e-3));
  CHECK(collective.ceilings.classic.time_s == doctest::Approx(1e-3));
  CHECK(collective.ceilings.classic.bound_by == "memory:dram");
  for (const auto variant : kAllVariants) CHECK(collective.ceilings[variant].flops_per_s == 0.0);
  // A copy of 4 GB: 2 ms at the DRAM; no network bytes, so the memory binds.
  const auto copy = evaluate_roofline(device, op_input(device, 0, 4e9));
  CHECK(copy.binding == Variant::classic);
  CHECK(copy.bound_by == "memory:dram");
  CHECK(copy.ceilings.classic.time_s == doctest::Approx(2e-3));
  // A launch latency longer than the copy's transfer binds it at the latency variant.
  device.launch_latency_s = 5e-3;
  const auto launched = evaluate_roofline(device, op_input(device, 0, 4e9));
  CHECK(launched.binding == Variant::latency);
  CHECK(launched.bound_by == "launch");
  CHECK(launched.ceilings.latency.time_s == doctest::Approx(5e-3));
  // No work at all takes no time; the compute line is named, and nothing is NaN.
  const auto nothing = evaluate_roofline(simple_device(1000e12, 2e12), op_input(device, 0, 0));
  CHECK(nothing.ceilings.classic.time_s == 0.0);
  CHECK(nothing.binding == Variant::classic);
}

TEST_CASE("an op without FLOPs under a power cap: its bytes' energy over the power left binds") {
  auto device = simple_device(1000e12, 2e12);
  device.levels[0].energy_per_byte_j = 16e-12;  // 16 pJ/B of DRAM
  device.power_cap_w = 120;
  device.static_power_w = 100;  // 20 W left
  // 8 GB: 4 ms at 2 TB/s; 8 GB x 16 pJ/B = 128 mJ at 20 W = 6.4 ms.
  const auto result = evaluate_roofline(device, op_input(device, 0, 8e9));
  CHECK(result.ceilings.classic.time_s == doctest::Approx(4e-3));
  CHECK(result.ceilings.power.time_s == doctest::Approx(6.4e-3));
  CHECK(result.binding == Variant::power);
  CHECK(result.bound_by == "power");
}
