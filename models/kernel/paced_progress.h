#pragma once
// Counters booked at once and spent in proportion to a progress that does not follow wall time evenly: a memoized
// replay whose pace follows the compute clock (models/power/clock_scaled_work.h) books its op's counters at its start,
// and a reader of activity over time (the power domain) spends them along its knots, as PacedAmount spends an amount
// evenly over an interval.
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

// A point of a replay's progress: at `at_fs`, `done` of the recorded op's time (0 to 1) has passed.
struct ProgressKnot {
  TimeFs at_fs = 0;
  double done = 0;
};

// The part of `amount`, spent in proportion to a replay's progress `knots` (in time order, the last at done = 1),
// still to come at `at_fs`.
[[nodiscard]] double progress_left(const std::vector<ProgressKnot>& knots, double amount, TimeFs at_fs);
// The wall time at which `knots` reach `done` (0 to 1).
[[nodiscard]] TimeFs time_at_progress(const std::vector<ProgressKnot>& knots, double done);

}  // namespace roofsim
