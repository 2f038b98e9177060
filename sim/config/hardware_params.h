#pragma once
// Stage 2 of the hardware configuration: validated runtime parameters of one device in base units (bytes, seconds,
// hertz, watts, joules, volts). Models receive these structs and never parse text.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/dram_params.h"
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

struct TileShape {
  std::uint64_t m = 0, n = 0, k = 0;
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

struct DvfsState {
  Hertz clock_hz = 0;  // compute-domain clock; engine clocks scale by clock / nominal clock
  Volts voltage_v = 0;
};

struct PowerParams {
  Watts tdp_w = 0;
  Watts cap_w = 0;     // the governor keeps average power below this
  Watts static_w = 0;  // leakage at nominal voltage; scales with V
  Volts nominal_voltage_v = 0;
  Hertz nominal_clock_hz = 0;    // the clock the engine figures are given at (the highest DVFS state)
  std::vector<DvfsState> dvfs;   // ascending clock; at least the nominal state
  Seconds window_s = 0;          // averaging window of the governor
  Seconds reaction_delay_s = 0;  // delay from a decision to the clock change
  Seconds up_hold_s = 0;         // time at a state whose mean power must predict a fit before a step up
};

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
