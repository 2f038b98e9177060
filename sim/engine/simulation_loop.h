#pragma once
// Runs the elaborated SystemC model until no event is left, as sc_start() does, but in slices of simulated time so
// that a SIGINT or SIGTERM (sim/core/interrupt.h) stops it between two slices. Events are processed in the same order
// as by one sc_start(): a slice ends between two time steps, never inside one.
namespace roofsim {

// Returns true when the model ran out of events, false when a signal stopped it with events left.
[[nodiscard]] bool simulate_until_idle_or_interrupted();

}  // namespace roofsim
