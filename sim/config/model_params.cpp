#include "sim/config/model_params.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace roofsim {

MemorySystemParams memory_system_params(const HardwareParams& hw) {
  return MemorySystemParams{hw.compute.units, hw.levels};
}

PowerDomainParams power_domain_params(const HardwareParams& hw) {
  PowerDomainParams params;
  for (const auto& engine : hw.compute.engines) {
    std::vector<Joules> per_op;
    for (const auto op_class : kAllEngineOpClasses) per_op.push_back(engine.op_energy_j(op_class));
    params.engines.push_back({engine.clock_hz, engine.energy_per_flop_j, std::move(per_op)});
  }
  for (const auto& level : hw.levels) params.levels.push_back({level.name, level.energy_per_byte_j});
  if (hw.dram) {
    const auto& energy = hw.dram->standard.energy;
    DramEnergyParams dram;
    dram.energy_per_byte_j = hw.dram->energy_per_byte_j;
    dram.act_j = energy.act_j;
    dram.pre_j = energy.pre_j;
    dram.rd_j = energy.rd_j;
    dram.wr_j = energy.wr_j;
    dram.ref_j = energy.ref_j;
    dram.background_w = energy.background_w;
    dram.channels = hw.dram->channels();
    params.dram = dram;
  }
  params.network_energy_per_byte_j = hw.interconnect.energy_per_byte_j;
  params.power = hw.power;
  return params;
}

ReductionParams reduction_params(const HardwareParams& hw, DataType type) {
  const auto* engine = hw.compute.engine_for(type, "vector");
  if (engine == nullptr) engine = hw.compute.engine_for(type);
  if (engine == nullptr) {
    throw std::invalid_argument("device " + hw.name + " has no engine for " + std::string(to_string(type)));
  }
  ReductionParams params;
  params.type = type;
  params.flops_per_s = engine->peak_flops_per_s(type, hw.compute.units);
  if (hw.dram) {
    params.memory_bytes_per_s = hw.dram->peak_bandwidth_bytes_per_s();
  } else if (!hw.levels.empty()) {
    params.memory_bytes_per_s = hw.levels.back().bandwidth_bytes_per_s;
  }
  return params;
}

}  // namespace roofsim
