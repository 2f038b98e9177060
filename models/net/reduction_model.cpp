#include "models/net/reduction_model.h"

#include <algorithm>
#include <stdexcept>

namespace roofsim::net {

ReductionModel::ReductionModel(const HardwareParams& device, DataType type) {
  const auto* engine = device.compute.engine_for(type, "vector");
  if (engine == nullptr) engine = device.compute.engine_for(type);
  if (engine == nullptr) {
    throw std::invalid_argument("device " + device.name + " has no engine for " + std::string(to_string(type)));
  }
  const FlopsPerSecond flops_per_s = engine->peak_flops_per_s(type, device.compute.units);
  BytesPerSecond memory_bytes_per_s = 0;
  if (device.dram) {
    memory_bytes_per_s = device.dram->peak_bandwidth_bytes_per_s();
  } else if (!device.levels.empty()) {
    memory_bytes_per_s = device.levels.back().bandwidth_bytes_per_s;
  }
  const double compute_s_per_byte = 1.0 / (static_cast<double>(element_bytes(type)) * flops_per_s);
  const double memory_s_per_byte = memory_bytes_per_s > 0 ? 3.0 / memory_bytes_per_s : 0.0;
  gamma_s_per_byte_ = std::max(compute_s_per_byte, memory_s_per_byte);
}

ReductionModel ReductionModel::per_byte(Seconds gamma_s_per_byte) {
  ReductionModel model;
  model.gamma_s_per_byte_ = gamma_s_per_byte;
  return model;
}

}  // namespace roofsim::net
