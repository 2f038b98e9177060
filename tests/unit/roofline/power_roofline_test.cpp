// The power-aware ceiling against the energy roofline of Choi, Bedard, Fowler and Vuduc (IPDPS 2013).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sim/roofline/roofline.h"
#include "tests/unit/roofline/roofline_test_device.h"

using namespace roofsim;
using roofsim::test::op_input;
using roofsim::test::simple_device;

namespace {

// P = 100 TFLOP/s, B = 2 TB/s (time balance P / B = 50 FLOP/B), e_flop = 1 pJ, e_mem = 20 pJ/B, pi0 = 50 W.
constexpr double kPeak = 100e12, kBandwidth = 2e12, kFlopJ = 1e-12, kByteJ = 20e-12, kStaticW = 50;

DeviceRoof choi_device(double cap_w) {
  auto device = simple_device(kPeak, kBandwidth);
  device.compute.engines[0].energy_per_flop_j[DataType::fp16] = kFlopJ;
  device.levels[0].energy_per_byte_j = kByteJ;
  device.static_power_w = kStaticW;
  device.power_cap_w = cap_w;
  return device;
}

constexpr double kW = 1e12;  // FLOPs of the op

}  // namespace

TEST_CASE("energy roofline: power pi0 + (W e_flop + Q e_mem) / T at the roofline time peaks at OI = P / B") {
  const auto device = choi_device(0);
  double best_power = 0, best_oi = 0;
  for (int step = -40; step <= 40; ++step) {
    const double oi = 50.0 * std::pow(2.0, step / 8.0);
    const double q = kW / oi;
    const double time_s = kW / classic_ceiling(device, op_input(device, kW, q)).flops_per_s;
    const double power = kStaticW + (kW * kFlopJ + q * kByteJ) / time_s;
    if (power > best_power) best_power = power, best_oi = oi;
  }
  CHECK(best_oi == doctest::Approx(kPeak / kBandwidth));
  CHECK(best_power == doctest::Approx(kStaticW + kPeak * kFlopJ + kBandwidth * kByteJ));  // 190 W
}

TEST_CASE("with a cap T is the largest of W tau_flop and Q tau_mem and (W e_flop + Q e_mem) / (Pcap - pi0)") {
  // 170 W lies below the 190 W peak: the cap binds for 40 < OI < 100 (2 OI + 90 > 170 and 150 + 2000 / OI > 170),
  // an interval around the time balance of 50.
  const auto device = choi_device(170);
  for (int step = -40; step <= 40; ++step) {
    const double oi = 50.0 * std::pow(2.0, step / 8.0);
    const double q = kW / oi;
    const double time_s = std::max({kW / kPeak, q / kBandwidth, (kW * kFlopJ + q * kByteJ) / (170 - kStaticW)});
    const auto result = evaluate_roofline(device, op_input(device, kW, q));
    CHECK(result.ceilings.power.flops_per_s == doctest::Approx(kW / time_s).epsilon(1e-9));
    const bool capped = oi > 40 * (1 + 1e-9) && oi < 100 * (1 - 1e-9);
    CHECK((result.binding == Variant::power) == capped);
    if (capped) CHECK(result.bound_by == "power");
  }
}

TEST_CASE("DVFS: the best state wins - dynamic energy scales with V^2 / static power with V") {
  auto device = choi_device(300);
  device.static_power_w = 100;
  device.compute.engines[0].flops_per_cycle[DataType::fp16] = 1e6;  // 1000 TFLOP/s at 1 GHz
  device.dvfs = {{0.5e9, 0.7}, {1e9, 1.0}};
  // A compute-only op (no bytes): at 1 GHz min(1000, 200 / 1 pJ = 200) TFLOP/s; at 0.5 GHz min(500, (300 - 70) /
  // 0.49 pJ = 469.4) TFLOP/s, the better state.
  const auto input = op_input(device, kW, 0);
  const double expected = std::min(500e12, (300 - 100 * 0.7) / (kFlopJ * 0.49));
  CHECK(power_ceiling(device, input).flops_per_s == doctest::Approx(expected));
  // A cap below the static power at every state leaves nothing: 0, neither negative nor NaN.
  device.power_cap_w = 60;
  CHECK(power_ceiling(device, input).flops_per_s == 0.0);
}

TEST_CASE("power-aware: on-chip level energies follow the compute voltage / DRAM energy does not") {
  auto device = choi_device(300);
  device.static_power_w = 0;
  device.levels.insert(device.levels.begin(), RoofLevel{"l2", 10e12, 10e-12, true});
  device.compute.engines[0].flops_per_cycle[DataType::fp16] = 1e7;  // 10 PFLOP/s: never the limit here
  device.main_bandwidth_bytes_per_s = 1e15;
  device.levels.back().bandwidth_bytes_per_s = 1e15;
  device.levels.front().bandwidth_bytes_per_s = 1e15;
  device.dvfs = {{0.5e9, 0.5}};
  // OI = 10 at both levels: per FLOP 1 pJ x 0.25 + 10 pJ x 0.25 / 10 + 20 pJ / 10 = 2.5 pJ.
  const auto input = op_input(device, kW, kW / 10);
  CHECK(power_ceiling(device, input).flops_per_s == doctest::Approx(300 / 2.5e-12));
}

TEST_CASE("power-aware: the units' clock power, units x e_cycle x f x (V/V0)^2, comes off the cap like static power") {
  auto device = choi_device(300);
  device.static_power_w = 100;
  device.compute.engines[0].flops_per_cycle[DataType::fp16] = 1e6;  // 1000 TFLOP/s at 1 GHz
  device.active_unit_energy_per_cycle_j = 500e-12;
  device.dvfs = {{0.5e9, 0.7}, {1e9, 1.0}};
  const double units = static_cast<double>(device.compute.units);
  CHECK(active_units_power_w(device, device.dvfs[1]) == doctest::Approx(units * 500e-12 * 1e9));
  CHECK(active_units_power_w(device, device.dvfs[0]) == doctest::Approx(units * 500e-12 * 0.5e9 * 0.49));
  // A compute-only op: at each state min(P_s, (Pcap - pi0 V/V0 - clock power) / (e_flop (V/V0)^2)); the better wins.
  const auto input = op_input(device, kW, 0);
  const double fast = std::min(1000e12, (300 - 100 - units * 0.5) / kFlopJ);
  const double slow = std::min(500e12, (300 - 70 - units * 0.5 * 0.5 * 0.49) / (kFlopJ * 0.49));
  REQUIRE(units * 0.5 < 200);
  CHECK(power_ceiling(device, input).flops_per_s == doctest::Approx(std::max(fast, slow)));
}
