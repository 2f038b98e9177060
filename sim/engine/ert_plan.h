#pragma once
// The sweep of `roofsim ert`: the Empirical Roofline Toolkit's method (Lo et al., "Roofline Model Toolkit: A Practical
// Tool for Architectural and Program Analysis", PMBS 2014) planned for one simulated device. ERT's kernel loads each
// element of a working set, gives it a number of FLOPs and stores it; the working set is swept from on-chip sizes to
// DRAM sizes and the FLOPs per element from 1 upwards, and the best rates found become the device's empirical
// ceilings. Plain C++ (sim/engine/ert_run.h runs the plan).
//
// The plan, for a device whose SRAM levels hold C_1 <= C_2 <= ... bytes in all (a unit-scope level: capacity x units):
// - bands: a working set in (C_{l-1}, C_l] fits level l and no level inside it, and one of at least twice the
//   largest cache inside streams through that cache (an LRU cache keeps nothing of a cyclic scan twice its size):
//   level l's band is those of both. A unit-scope scratchpad keeps nothing between steps, so it does not push the
//   next band out. One of at least 2 C_outer fits no SRAM level: the DRAM band. Sizes in between belong to no band.
// - bandwidth points: one FLOP per element over a ladder of working sets from one request per slot, doubling (x4
//   with `quick`), plus each band's representative (3/4 of C_l, so that a set-associative cache holds it whole) and
//   the largest working set (2 C_outer; without DRAM, the outermost level's capacity).
// - intensity points: at each band's representative, the FLOPs per element rising x4 (x16 with `quick`) up to the
//   memory type's top, on the memory type: the device's data type and engine with the highest peak.
// - compute points: at the smallest working set, each engine's data types at their top FLOPs per element (and 1/2,
//   1/4 of it without `quick`). The top is the power of two whose intensity is at least 8 times the type's ridge
//   point against the main memory, so that no memory level binds there.
// Every point runs as two ops of p and 2p passes (p: enough passes that each tile makes at least 32 steps, 16 with
// `quick`, and at least 2); the point's rate is the better of the two runs' mean rates, as ERT keeps the best over its
// trial counts: a rate a run achieved, launch latency excluded, the pipeline's fill and drain included. A working
// set that fits an SRAM level gets a warm-up pass first, so that both runs start with it where it fits; every point
// has addresses of its own, so that none starts with another's data in a cache.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

// One engine and data type of the device ("matrix", bf16) with its analytic peak.
struct ErtKernelType {
  std::string engine;
  DataType dtype = DataType::fp32;
  FlopsPerSecond peak_flops_per_s = 0;
  std::uint64_t top_flops_per_element = 1;  // the highest FLOPs per element the plan runs for this type

  [[nodiscard]] std::string label() const;  // "matrix bf16"
};

// Working sets in [from_bytes, to_bytes] fit `level` and no level inside it ("dram": no SRAM level).
struct ErtBand {
  std::string level;
  Bytes from_bytes = 0;
  Bytes to_bytes = 0;
  Bytes representative_bytes = 0;  // the working set of the band's intensity sweep; 0 when the band is empty

  [[nodiscard]] bool holds(Bytes working_set_bytes) const {
    return working_set_bytes >= from_bytes && working_set_bytes <= to_bytes;
  }
};

enum class ErtPurpose { bandwidth, intensity, compute };
[[nodiscard]] std::string_view to_string(ErtPurpose purpose);

struct ErtPoint {
  ErtPurpose purpose = ErtPurpose::bandwidth;
  std::size_t type = 0;  // index into ErtPlan::types
  Bytes working_set_bytes = 0;
  std::uint64_t flops_per_element = 1;
  std::uint64_t passes = 1;  // of the short run; the long run makes 2 x passes
  bool warm_up = false;      // a pass before the two runs
  std::string band;          // the level whose band holds the working set; "" between bands

  // FLOPs per byte the kernel moves: each element is loaded and stored once per pass.
  [[nodiscard]] FlopsPerByte intensity(DataType dtype) const;
  // Requests the point's ops make (reads and writes of every pass, warm-up included).
  [[nodiscard]] std::uint64_t chunk_accesses(Bytes request_bytes) const;
};

struct ErtOptions {
  bool quick = false;
  Bytes max_working_set_bytes = 0;  // 0: twice the SRAM's total (the outermost level's capacity without DRAM)
};

struct ErtPlan {
  std::vector<ErtKernelType> types;  // each engine's data types, in the device file's engine order
  std::size_t memory_type = 0;       // the type of the bandwidth and intensity points
  std::vector<ErtBand> bands;        // SRAM levels from the units outward, then "dram" when there is DRAM
  std::vector<ErtPoint> points;      // bandwidth points (ascending working set), intensity points, compute points
  Bytes request_bytes = 0;
  std::uint64_t slots = 0;  // units x occupancy: the kernel's tiles

  [[nodiscard]] std::uint64_t chunk_accesses() const;
};

// Throws InputError when the device has no engine or the largest working set is below one request per slot.
[[nodiscard]] ErtPlan plan_ert(const HardwareParams& hw, const ErtOptions& options);

}  // namespace roofsim
