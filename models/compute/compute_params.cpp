#include "models/compute/compute_params.h"

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

FlopsPerSecond ComputeParams::peak_flops_per_s(DataType type, std::string_view preferred) const {
  const auto* chosen = engine_for(type, preferred);
  return chosen == nullptr ? 0.0 : chosen->peak_flops_per_s(type, units);
}

}  // namespace roofsim
