#pragma once
// The power side of `roofsim run`'s report (issue 8 item 5): each op's energy, average power, J/FLOP, time at each
// clock and throttled time as report fields, and a console table that gains clock columns when a cap bound.
#include <iosfwd>

#include "sim/engine/run_result.h"
#include "sim/report/report.h"

namespace roofsim {

// Sets each op's simulated energy and adds a "power" object to its report.json entry.
void add_power_fields(Report& report, const RunResult& result);

// Per op: average power, energy, pJ/FLOP; when the governor throttled, the engines' mean clock over their busy time,
// the time lost to throttling (as the gap attribution counts it), the time below the fastest clock, and the time at
// each clock the run visited.
void write_power_table(const Report& report, const RunResult& result, std::ostream& out);

}  // namespace roofsim
