#pragma once
// The benchmark's reference: an empty SystemC model of `processes` self-retriggering SC_METHODs
// that together run `activations` times. Its activation rate is what the kernel alone can do with that many
// processes, so a scenario's rate over it says how much of the simulator's time the models themselves take.
// Elaborates SystemC, so it must run in a process of its own (one elaboration per process).
#include <cstdint>

#include "sim/core/units.h"

namespace roofsim {

struct EmptyModelResult {
  std::uint64_t activations = 0;
  Seconds wall_s = 0;
};

[[nodiscard]] EmptyModelResult run_empty_model(std::uint64_t processes, std::uint64_t activations);

}  // namespace roofsim
