#pragma once
// The power table of `roofsim run`: per op, average power, energy, pJ/FLOP; when the governor throttled, the engines'
// mean clock over their busy time, the time lost to throttling (as the gap attribution counts it), the time below the
// fastest clock, and the time at each clock the run visited. A cap that bound adds the clock columns.
#include <iosfwd>

#include "sim/engine/run_result.h"
#include "sim/results/report_model.h"

namespace roofsim {

void write_power_table(const Report& report, const RunResult& result, std::ostream& out);

}  // namespace roofsim
