#pragma once
// The parameters of the models that draw on several sections of a device file, gathered from its HardwareParams: the
// memory system (the levels and the units they serve), the power domain (the energies of every model's events) and
// the reductions of a collective (the device's adding engine and memory bandwidth). The other models take their
// section's struct as it is (ComputeParams, DramParams, TopologyParams).
#include "models/memory/memory_params.h"
#include "models/net/net_params.h"
#include "models/power/power_params.h"
#include "sim/config/hardware_params.h"
#include "sim/core/data_type.h"

namespace roofsim {

[[nodiscard]] MemorySystemParams memory_system_params(const HardwareParams& hw);
[[nodiscard]] PowerDomainParams power_domain_params(const HardwareParams& hw);
// The reduction of `type` on the device: its vector engine (else the fastest engine that supports the type) and its
// DRAM bandwidth (else its outermost on-chip level's). Throws std::invalid_argument when no engine supports the type.
[[nodiscard]] ReductionParams reduction_params(const HardwareParams& hw, DataType type);

}  // namespace roofsim
