#pragma once
// Stage 2 of the hardware configuration: validated runtime parameters of one device in base units (bytes, seconds,
// hertz, watts, joules, volts), composed of the models' own parameter structs (models/*/..._params.h). Models receive
// their structs (model_params.h builds those that combine several sections) and never parse text.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/compute/compute_params.h"
#include "models/memory/memory_params.h"
#include "models/power/power_params.h"
#include "sim/config/design_params.h"
#include "sim/config/dram_params.h"
#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

struct InterconnectParams {
  std::uint64_t links = 0;                        // device-to-device links (NVLink, ICI, Infinity Fabric)
  BytesPerSecond link_bandwidth_bytes_per_s = 0;  // per link, per direction
  Seconds link_latency_s = 0;
  Joules energy_per_byte_j = 0;

  [[nodiscard]] BytesPerSecond bandwidth_bytes_per_s() const {
    return static_cast<double>(links) * link_bandwidth_bytes_per_s;
  }
};

struct HardwareParams {
  std::string name;
  std::string file;              // where it was read from
  Seconds launch_latency_s = 0;  // kernel launch: inputs ready -> first tile may start
  std::uint64_t streams = 1;     // independent ops that may run at once
  ComputeParams compute;
  std::vector<MemoryLevelParams> levels;  // from the units outward (unit-scope levels first), DRAM not included
  std::optional<DramParams> dram;         // absent on SRAM-only designs
  PowerParams power;
  InterconnectParams interconnect;
  DesignParams design;  // area, cost and power budget inputs (sim/design)

  [[nodiscard]] const MemoryLevelParams* level(std::string_view name) const;
  // The last on-chip level a unit's requests go through before DRAM (or the outermost level without DRAM).
  [[nodiscard]] const MemoryLevelParams* local_level() const;  // the first unit-scope level, if any
};

struct Override {
  std::string key;    // dotted path ("memory.l2.capacity")
  std::string value;  // as typed ("16MiB")
};

class KeyRegistry;
[[nodiscard]] const KeyRegistry& hardware_registry();

// Reads, checks and validates a device file. DRAM standards named by the file are looked up in `dram/` beside
// it, then beside its parent folder, then in the installed configs. Throws InputError.
[[nodiscard]] HardwareParams load_hardware(const std::filesystem::path& file,
                                           const std::vector<Override>& overrides = {});

// The controller keys of a [dram] section at their schema defaults (model, mapping, policies, queues); the standard,
// stacks, capacity and latency, which have no default, are left empty. For a DRAM run of a standard file alone.
[[nodiscard]] DramParams default_dram_params();

}  // namespace roofsim
