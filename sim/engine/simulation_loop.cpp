#include "sim/engine/simulation_loop.h"

#include <systemc>

#include <algorithm>
#include <chrono>

#include "sim/core/interrupt.h"

namespace roofsim {

namespace {

// A slice should take about this long in wall time: short enough to stop promptly, long enough that the check between
// slices costs nothing measurable.
constexpr double kSliceMinWallS = 0.02;
constexpr double kSliceMaxWallS = 0.1;

}  // namespace

bool simulate_until_idle_or_interrupted(const std::function<void()>& between_slices) {
  using sc_core::sc_time;
  sc_time slice(1.0, sc_core::SC_US);
  const sc_time shortest(1.0, sc_core::SC_PS);
  bool first = true;
  while (first || sc_core::sc_pending_activity()) {
    if (sc_core::sc_get_status() == sc_core::SC_STOPPED) return true;
    if (!first && interrupt_signal() != 0) return false;
    sc_time duration = slice;
    if (!first) {
      // Reach at least the next event: a slice without activity makes SystemC warn on stdout.
      duration = std::max(duration, sc_core::sc_time_to_pending_activity());
      duration = std::min(duration, sc_core::sc_max_time() - sc_core::sc_time_stamp());
    }
    first = false;
    const auto start = std::chrono::steady_clock::now();
    sc_core::sc_start(duration, sc_core::SC_EXIT_ON_STARVATION);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (between_slices) between_slices();
    if (wall_s < kSliceMinWallS) {
      if (slice < sc_core::sc_max_time() / 2.0) slice = slice * 2.0;
    } else if (wall_s > kSliceMaxWallS) {
      slice = std::max(shortest, slice / 2.0);
    }
  }
  return true;
}

}  // namespace roofsim
