#pragma once
// The compute side of a device as the configuration describes it (sim/config produces it from the device file's
// [compute] section, in base units): its units, their engines with their peak FLOPs per cycle per data type and their
// operations per cycle per operation class, and the limits that shape a unit's work (resident tiles, memory requests
// in flight, chunk size), and the kernel schedule its ops run by default.
#include <array>
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

// Engines a compute unit may have (matrix, a second matrix path, vector, special-function, ...): per-unit state keeps
// fixed arrays of this size, so that running a step allocates nothing.
inline constexpr std::size_t kMaxUnitEngines = 8;

// Operation classes of the engines beside the matrix engine, rated in lane operations per cycle per unit (the rows of
// the CUDA C++ Programming Guide's table of arithmetic instruction throughputs): FMA-class (fused multiply-add, add,
// multiply; one FMA is one operation and two FLOPs) and ALU-class (max, min, compare, conversion) vector operations per
// data type, and the special-function unit's exp2, reciprocal and reciprocal square root.
enum class EngineOpClass : std::uint8_t {
  fp32_fma,
  fp32_alu,
  fp16_fma,
  fp16_alu,
  bf16_fma,
  bf16_alu,
  exp2,
  reciprocal,
  rsqrt,
};
inline constexpr std::array<EngineOpClass, 9> kAllEngineOpClasses = {
    EngineOpClass::fp32_fma, EngineOpClass::fp32_alu,   EngineOpClass::fp16_fma,
    EngineOpClass::fp16_alu, EngineOpClass::bf16_fma,   EngineOpClass::bf16_alu,
    EngineOpClass::exp2,     EngineOpClass::reciprocal, EngineOpClass::rsqrt};
[[nodiscard]] std::string_view to_string(EngineOpClass op_class);
// The operation classes of the vector work of a data type: its FMA class and its ALU class (fp32's for other types).
[[nodiscard]] std::array<EngineOpClass, 2> vector_classes(DataType type);

// How a tile slot orders the phases of its steps (an attention step: S = Q K^T, softmax, P V).
enum class KernelSchedule : std::uint8_t {
  serial,    // FlashAttention-2: each phase waits for the one before it, step after step
  pingpong,  // FlashAttention-3: phase 0 of step j + 1 is issued once phase 0 of step j is done (intra-slot pipelining)
};

struct EngineParams {
  std::string name;                                 // "matrix" (tensor cores, MXU), "vector" (SIMT/VPU), ...
  Hertz clock_hz = 0;                               // nominal clock of this engine
  std::map<DataType, double> flops_per_cycle;       // dense FLOPs per cycle per compute unit
  std::map<DataType, Joules> energy_per_flop_j;     // dynamic energy per FLOP at the nominal voltage
  std::map<EngineOpClass, double> ops_per_cycle;    // lane operations per cycle per compute unit, per class
  std::map<EngineOpClass, Joules> energy_per_op_j;  // dynamic energy per lane operation at the nominal voltage

  [[nodiscard]] bool supports(DataType type) const { return flops_per_cycle.count(type) != 0; }
  [[nodiscard]] bool rates(EngineOpClass op_class) const { return ops_per_cycle.count(op_class) != 0; }
  // Energy of one operation of a class on this engine: the file's figure, else for an FMA-class operation two FLOPs
  // of its data type (an FMA is two FLOPs of the same datapath), else 0.
  [[nodiscard]] Joules op_energy_j(EngineOpClass op_class) const;
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
  KernelSchedule kernel_schedule = KernelSchedule::serial;  // of ops that name none

  [[nodiscard]] const EngineParams* engine(std::string_view name) const;
  // The engine an op of this type runs on: the named one, else the one with the highest peak for the type.
  [[nodiscard]] const EngineParams* engine_for(DataType type, std::string_view preferred = {}) const;
  [[nodiscard]] FlopsPerSecond peak_flops_per_s(DataType type, std::string_view preferred = {}) const;

  // The engine that runs one kind of an op's work and its rate per unit at the engine's nominal clock (FLOP/s for
  // the op's own FLOPs, operations/s for the others). `index` is into `engines`; rate 0 when no engine can.
  struct Route {
    std::size_t index = 0;
    double per_unit_per_s = 0;
  };
  // Routes of the six kinds of PhaseWork (models/kernel/tile.h), in its order: flops, vector_fma, vector_alu, exp2,
  // reciprocal, rsqrt. `own` runs the FLOPs at its rate for `op_type`. Vector work runs on the engine that rates
  // that class for `vector_type` (else for fp32), or else on the engine named "vector" at half its FLOP rate (one
  // FMA is two FLOPs). Special-function work runs on the engine that rates it, or else on the vector engine at its
  // fp32 FMA rate (a device without such units computes transcendentals on its lanes).
  [[nodiscard]] std::array<Route, 6> routes(const EngineParams& own, DataType op_type, DataType vector_type) const;
};

}  // namespace roofsim
