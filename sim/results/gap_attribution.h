#pragma once
// Gap attribution: for one op, the binding ceiling's time against the simulated time, and the difference split into
// measured causes that add up to it.
//
// The engine measures, for the op's window [launch, end], how its units spent their time (sim/engine/run_result.h:
// busy, memory latency, bandwidth queueing, launch, dispatch, tail; their sum is units x window). Divided by the unit
// count, each is a share of the simulated time, so the shares add up to the simulated time. The ceiling's time is
// the part of the share of the resource that binds (compute: busy; a memory level or DRAM rows: bandwidth queueing;
// latency: memory latency; launch: launch; power: busy, then throttling) that the roofline promises; the gap is
// everything else. When the ceiling time exceeds its resource's share (a unit overlaps loads with compute, so the
// shares of a bound op sit in several causes), the excess is taken from the other resident causes in a fixed order,
// and what is left (the op ran faster than the ceiling, e.g. the simple DRAM model above the row-aware line) is a
// negative "ahead" cause. So the causes add up to the gap exactly, by construction; what is measured is how the time
// splits.
//
// Causes beyond the units' shares (DRAM row misses, refresh and turnarounds, throttling, exposed communication) are
// appended to GapInput::causes, carved out of the share they were counted in (row misses out of bandwidth queueing,
// throttling out of busy); where such a cause is what a ceiling promises, ceiling_cause_for() names it.
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace roofsim {

struct GapCause {
  std::string name;     // "tail", "latency", "bandwidth_queueing", ...
  Seconds seconds = 0;  // share of the op's simulated time
};

struct GapInput {
  Seconds sim_time_s = 0;      // launch to end
  Seconds ceiling_time_s = 0;  // the binding ceiling's time for the op
  std::string bound_by;  // the binding ceiling's resource: compute:<dtype>, memory:<level>, dram-rows, latency, ...
  std::vector<GapCause> causes;  // measured shares of sim_time_s (busy as "compute"); they should add up to it
};

struct GapAttribution {
  Seconds ceiling_time_s = 0;
  Seconds sim_time_s = 0;
  Seconds gap_s = 0;             // sim - ceiling
  std::vector<GapCause> causes;  // add up to gap_s
  std::string absorbed_by;       // the cause the ceiling time was taken from first
};

// The cause a binding resource's ceiling time is taken from first.
[[nodiscard]] std::string ceiling_cause_for(const std::string& bound_by);

// Differences of sums of times carry the rounding of doubles (a share that is 0 comes out as 8.5e-22 s, a cause that
// took nothing as -0): a magnitude at most this fraction of the op's time is such noise and is reported as 0. It is
// far above double rounding (1e-16 relative) and far below anything the model resolves (1 fs in a 1 ms op is 1e-12).
inline constexpr double kRoundingNoiseRelative = 1e-12;

// `value`, or +0 when its magnitude is rounding noise against `reference` (the op's or step's time).
[[nodiscard]] double without_rounding_noise(double value, double reference);

// Splits the gap. Shares that do not add up to sim_time_s (rounding) leave their difference in "unattributed"; every
// cause and the gap are without rounding noise (kRoundingNoiseRelative).
[[nodiscard]] GapAttribution attribute_gap(const GapInput& input);

}  // namespace roofsim
