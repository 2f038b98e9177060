#include "models/compute/compute_params.h"

#include <optional>

namespace roofsim {

FlopsPerSecond EngineParams::peak_flops_per_s(DataType type, std::uint64_t units) const {
  const auto found = flops_per_cycle.find(type);
  if (found == flops_per_cycle.end()) return 0.0;
  return found->second * clock_hz * static_cast<double>(units);
}

const EngineParams* ComputeParams::engine(std::string_view name) const {
  for (const auto& candidate : engines) {
    if (candidate.name == name) return &candidate;
  }
  return nullptr;
}

const EngineParams* ComputeParams::engine_for(DataType type, std::string_view preferred) const {
  if (!preferred.empty()) {
    const auto* named = engine(preferred);
    return named != nullptr && named->supports(type) ? named : nullptr;
  }
  const EngineParams* best = nullptr;
  for (const auto& candidate : engines) {
    if (!candidate.supports(type)) continue;
    if (best == nullptr || candidate.peak_flops_per_s(type, 1) > best->peak_flops_per_s(type, 1)) best = &candidate;
  }
  return best;
}

std::string_view to_string(EngineOpClass op_class) {
  switch (op_class) {
    case EngineOpClass::fp32_fma: return "fp32_fma";
    case EngineOpClass::fp32_alu: return "fp32_alu";
    case EngineOpClass::fp16_fma: return "fp16_fma";
    case EngineOpClass::fp16_alu: return "fp16_alu";
    case EngineOpClass::bf16_fma: return "bf16_fma";
    case EngineOpClass::bf16_alu: return "bf16_alu";
    case EngineOpClass::exp2: return "exp2";
    case EngineOpClass::reciprocal: return "reciprocal";
    case EngineOpClass::rsqrt: return "rsqrt";
  }
  return "fp32_fma";
}

std::array<EngineOpClass, 2> vector_classes(DataType type) {
  switch (type) {
    case DataType::fp16: return {EngineOpClass::fp16_fma, EngineOpClass::fp16_alu};
    case DataType::bf16: return {EngineOpClass::bf16_fma, EngineOpClass::bf16_alu};
    default: return {EngineOpClass::fp32_fma, EngineOpClass::fp32_alu};
  }
}

Joules EngineParams::op_energy_j(EngineOpClass op_class) const {
  const auto found = energy_per_op_j.find(op_class);
  if (found != energy_per_op_j.end()) return found->second;
  const auto fma_of = [&](DataType type) {
    const auto per_flop = energy_per_flop_j.find(type);
    return per_flop == energy_per_flop_j.end() ? 0.0 : 2 * per_flop->second;
  };
  // An ALU-class operation runs on the lanes of its type's FMA pipe; without a figure of its own it costs an FMA's.
  switch (op_class) {
    case EngineOpClass::fp32_fma: return fma_of(DataType::fp32);
    case EngineOpClass::fp16_fma: return fma_of(DataType::fp16);
    case EngineOpClass::bf16_fma: return fma_of(DataType::bf16);
    case EngineOpClass::fp32_alu: return op_energy_j(EngineOpClass::fp32_fma);
    case EngineOpClass::fp16_alu: return op_energy_j(EngineOpClass::fp16_fma);
    case EngineOpClass::bf16_alu: return op_energy_j(EngineOpClass::bf16_fma);
    default: return 0.0;
  }
}

std::array<ComputeParams::Route, 6> ComputeParams::routes(const EngineParams& own, DataType op_type,
                                                          DataType vector_type) const {
  std::array<Route, 6> out{};
  const auto index_of = [&](const EngineParams& engine) { return static_cast<std::size_t>(&engine - engines.data()); };
  const auto own_rate = own.flops_per_cycle.find(op_type);
  out[0] = {index_of(own), own_rate == own.flops_per_cycle.end() ? 0.0 : own_rate->second * own.clock_hz};
  const auto rated = [&](EngineOpClass op_class) -> std::optional<Route> {
    for (const auto& engine : engines) {
      const auto found = engine.ops_per_cycle.find(op_class);
      if (found != engine.ops_per_cycle.end()) return Route{index_of(engine), found->second * engine.clock_hz};
    }
    return std::nullopt;
  };
  const EngineParams* lanes = engine("vector");
  if (lanes == nullptr) lanes = &own;
  // Half the FLOP rate of the lanes for a type: one FMA per lane is two FLOPs.
  const auto from_flops = [&](DataType type) -> std::optional<Route> {
    const auto found = lanes->flops_per_cycle.find(type);
    if (found == lanes->flops_per_cycle.end()) return std::nullopt;
    return Route{index_of(*lanes), found->second / 2 * lanes->clock_hz};
  };
  for (std::size_t k = 0; k < 2; ++k) {
    const EngineOpClass wanted = vector_classes(vector_type)[k];
    const EngineOpClass fp32 = vector_classes(DataType::fp32)[k];
    std::optional<Route> route = rated(wanted);
    if (!route && k == 1) route = rated(vector_classes(vector_type)[0]);  // no ALU rate: the FMA pipe's
    if (!route) route = from_flops(vector_type);
    if (!route) route = rated(fp32);
    if (!route && k == 1) route = rated(EngineOpClass::fp32_fma);
    if (!route) route = from_flops(DataType::fp32);
    out[1 + k] = route.value_or(Route{index_of(*lanes), 0.0});
  }
  const std::array<EngineOpClass, 3> special = {EngineOpClass::exp2, EngineOpClass::reciprocal, EngineOpClass::rsqrt};
  for (std::size_t k = 0; k < special.size(); ++k) {
    const auto route = rated(special[k]);
    if (route) {
      out[3 + k] = *route;
    } else {
      const auto fp32 = rated(EngineOpClass::fp32_fma);
      out[3 + k] = fp32 ? *fp32 : from_flops(DataType::fp32).value_or(out[1]);
    }
  }
  return out;
}

FlopsPerSecond ComputeParams::peak_flops_per_s(DataType type, std::string_view preferred) const {
  const auto* chosen = engine_for(type, preferred);
  return chosen == nullptr ? 0.0 : chosen->peak_flops_per_s(type, units);
}

}  // namespace roofsim
