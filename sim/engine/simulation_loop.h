#pragma once
// Runs the elaborated SystemC model until no event is left, as sc_start() does, but in slices of simulated time so
// that a SIGINT or SIGTERM (sim/core/interrupt.h) stops it between two slices. Events are processed in the same order
// as by one sc_start(): a slice ends between two time steps, never inside one.
#include <functional>

namespace roofsim {

// Returns true when the model ran out of events, false when a signal stopped it with events left. `between_slices`,
// when given, runs after each slice (a long run's progress report).
[[nodiscard]] bool simulate_until_idle_or_interrupted(const std::function<void()>& between_slices = {});

}  // namespace roofsim
