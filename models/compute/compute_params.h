#pragma once
// The compute side of a device as the configuration describes it (sim/config produces it from the device file's
// [compute] section, in base units): its units, their engines with their peak FLOPs per cycle per data type, and the
// limits that shape a unit's work (resident tiles, memory requests in flight, chunk size).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/kernel/tile.h"
#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

struct EngineParams {
  std::string name;                              // "matrix" (tensor cores, MXU) or "vector" (SIMT/VPU)
  Hertz clock_hz = 0;                            // nominal clock of this engine
  std::map<DataType, double> flops_per_cycle;    // dense FLOPs per cycle per compute unit
  std::map<DataType, Joules> energy_per_flop_j;  // dynamic energy per FLOP at the nominal voltage

  [[nodiscard]] bool supports(DataType type) const { return flops_per_cycle.count(type) != 0; }
  // Peak of all units of the device for one data type, FLOP/s; 0 when unsupported.
  [[nodiscard]] FlopsPerSecond peak_flops_per_s(DataType type, std::uint64_t units) const;
};

struct ComputeParams {
  std::uint64_t units = 0;                 // compute units (SMs, CUs, TPU cores)
  std::uint64_t occupancy = 1;             // resident tiles per unit (they share the unit's engines)
  std::uint64_t outstanding_requests = 0;  // memory requests in flight per unit (Little's law)
  Bytes request_bytes = 0;                 // size of one memory request (chunk)
  std::optional<TileShape> default_tile;   // GEMM tile when an op names none
  std::vector<EngineParams> engines;

  [[nodiscard]] const EngineParams* engine(std::string_view name) const;
  // The engine an op of this type runs on: the named one, else the one with the highest peak for the type.
  [[nodiscard]] const EngineParams* engine_for(DataType type, std::string_view preferred = {}) const;
  [[nodiscard]] FlopsPerSecond peak_flops_per_s(DataType type, std::string_view preferred = {}) const;
};

}  // namespace roofsim
