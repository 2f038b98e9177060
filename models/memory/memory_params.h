#pragma once
// The on-chip memory levels of a device as the configuration describes them (sim/config produces them from the
// device file's [memory.*] sections, in base units), and what the memory system is built from: the levels from the
// units outward and the number of units whose requests they serve.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace roofsim {

enum class LevelScope { unit, device };
enum class LevelKind { scratchpad, cache };

struct MemoryLevelParams {
  std::string name;  // "smem", "l1", "l2", "sram"
  LevelScope scope = LevelScope::device;
  LevelKind kind = LevelKind::cache;
  Bytes capacity_bytes = 0;  // per unit for unit scope, total for device scope
  Bytes line_bytes = 0;
  std::uint64_t associativity = 0;
  std::uint64_t banks = 0;
  double bytes_per_cycle = 0;  // per unit for unit scope, total for device scope
  Hertz clock_hz = 0;
  Seconds latency_s = 0;     // unloaded access latency
  Bytes tracking_bytes = 0;  // granularity of cache tags (coarser than lines, DESIGN.md section 1.5)
  Joules energy_per_byte_j = 0;
  BytesPerSecond bandwidth_bytes_per_s = 0;  // whole device: bytes_per_cycle x clock (x units for unit scope)
};

struct MemorySystemParams {
  std::uint64_t units = 0;                // compute units: each has its own port (and tags) at a unit-scope level
  std::vector<MemoryLevelParams> levels;  // from the units outward (unit-scope levels first), DRAM not included
};

}  // namespace roofsim
