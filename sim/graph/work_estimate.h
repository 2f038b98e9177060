#pragma once
// What a simulation will cost, before it runs: the tiles and memory requests its ops lower to (the lowering's closed
// forms, and one generated step per op), and from those a rough wall time and peak memory. A run past the tile limit
// is refused on these counts; a long one says on stderr, before it starts, about how long it will take.
#include <cstdint>
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"

namespace roofsim {

struct WorkEstimate {
  std::uint64_t ops = 0;
  std::uint64_t tiles = 0;             // over every op and simulated rank
  std::uint64_t requests = 0;          // memory requests (chunks): the events that dominate a run's time
  std::uint64_t compulsory_bytes = 0;  // the ops' reads and writes of their tensors: DRAM traffic, at the least
  std::uint64_t units = 0;             // compute units simulated, each a module with its own state
  double wall_s = 0;                   // from the model in work_estimate.cpp
  double memory_bytes = 0;
};

// The work of simulating `workload` on `ranks` devices of type `hardware` (1 for a single-device run; the ranks whose
// compute a cluster run simulates). Throws InputError where the lowering does (an op whose tile does not fit).
[[nodiscard]] WorkEstimate estimate_work(const Workload& workload, const HardwareParams& hardware,
                                         std::uint64_t ranks = 1);

// Whether a run is long enough to say so before it starts.
[[nodiscard]] bool worth_announcing(const WorkEstimate& estimate);

// "about 4 min and 1.2 GiB to simulate 41000 tiles: 3.1e+08 memory requests and 12 GiB of DRAM traffic (a rough
// model ...)"
[[nodiscard]] std::string estimate_text(const WorkEstimate& estimate);

}  // namespace roofsim
