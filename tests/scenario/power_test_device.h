#pragma once
// A small device with a power section for the power scenarios: every energy, the static power and the DVFS table
// are chosen here, so the closed forms the tests check follow from these figures.
#include "tests/scenario/test_device.h"

namespace roofsim::test {

struct PowerTestDevice {
  TestDevice spec;
  Joules matrix_flop_j = 10e-12;  // bf16 on the matrix engine
  Joules vector_flop_j = 10e-12;  // bf16 on the vector engine
  Joules smem_byte_j = 0.1e-12;
  Joules l2_byte_j = 0.5e-12;
  Joules dram_byte_j = 50e-12;
  Watts static_w = 20;
  Watts cap_w = 0;
  Seconds window_s = 10e-6;
  Seconds reaction_delay_s = 1e-6;
  // (clock, voltage), ascending; the last is the nominal state at the engines' clock (spec.clock_hz = 1 GHz).
  std::vector<DvfsState> states = {{0.5e9, 0.7}, {0.75e9, 0.85}, {1.0e9, 1.0}};

  PowerTestDevice() {
    spec.units = 8;
    spec.dram_channel_bytes_per_s = 100e9;
  }

  [[nodiscard]] HardwareParams build() const {
    auto hw = spec.build();
    for (auto& engine : hw.compute.engines) {
      for (const auto& [dtype, rate] : engine.flops_per_cycle) {
        engine.energy_per_flop_j[dtype] = engine.name == "matrix" ? matrix_flop_j : vector_flop_j;
        // A lane operation of the FMA class costs what a FLOP of its type does, so that an element-wise op's
        // energy is its FLOPs x vector_flop_j (its FLOPs are those operations).
        if (engine.name != "matrix") engine.energy_per_op_j[vector_classes(dtype)[0]] = vector_flop_j;
      }
    }
    for (auto& level : hw.levels) level.energy_per_byte_j = level.name == "smem" ? smem_byte_j : l2_byte_j;
    if (hw.dram) hw.dram->energy_per_byte_j = dram_byte_j;
    hw.power.tdp_w = cap_w;
    hw.power.cap_w = cap_w;
    hw.power.static_w = static_w;
    hw.power.nominal_voltage_v = states.back().voltage_v;
    hw.power.nominal_clock_hz = states.back().clock_hz;
    hw.power.dvfs = states;
    hw.power.window_s = window_s;
    hw.power.reaction_delay_s = reaction_delay_s;
    return hw;
  }

  // Dynamic power of an op that runs at `flops_per_s` on the matrix engine and moves bytes per FLOP at each level
  // (`bytes` per level, over `flops`), at state s; plus the static power at s.
  [[nodiscard]] Watts power_w(double flops_per_s, double flops, const std::vector<std::pair<std::string, Bytes>>& bytes,
                              std::size_t s, bool matrix = true) const {
    const double v = states[s].voltage_v / states.back().voltage_v;
    double per_flop = (matrix ? matrix_flop_j : vector_flop_j) * v * v;
    for (const auto& [level, count] : bytes) {
      const double per_byte = level == "smem" ? smem_byte_j * v * v : level == "l2" ? l2_byte_j * v * v : dram_byte_j;
      per_flop += per_byte * static_cast<double>(count) / flops;
    }
    return flops_per_s * per_flop + static_w * v;
  }
};

}  // namespace roofsim::test
