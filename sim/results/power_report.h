#pragma once
// The power side of `roofsim run`'s report: each op's energy, average power, J/FLOP, time at each clock and
// throttled time as report fields (the console table of these is sim/report/power_table.h).
#include <string>

#include "sim/engine/run_result.h"
#include "sim/results/report_model.h"

namespace roofsim {

// Sets each op's simulated energy and adds a "power" object to its report.json entry.
void add_power_fields(Report& report, const RunResult& result);

// A DVFS state's clock as reports name it ("1.905 GHz"): the keys of the time-at-clock objects and the table columns.
[[nodiscard]] std::string clock_label(Hertz clock_hz);

// The op's engines' mean clock over their busy time (busy-weighted over the DVFS states); 0 without busy time.
[[nodiscard]] Hertz busy_clock_hz(const OpRunStats& op, const PowerRunStats& power);

// The op's time lost to throttling as a share of its simulated time (unit-time / units, as the gap counts it).
[[nodiscard]] Seconds throttling_loss_s(const OpRunStats& op, const RunResult& result);

}  // namespace roofsim
