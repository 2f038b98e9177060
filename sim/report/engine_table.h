#pragma once
// The engine's table of `roofsim run`: per op its tiles, waves, efficiency and where the units' time went from its
// launch to its end (and how long it waited for its inputs before), then each op's gap to its binding ceiling by cause.
#include <iosfwd>

#include "sim/engine/run_result.h"
#include "sim/report/report_writers.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// Within kConsoleColumns unless `options.wide` (which adds each op's tiling and every gap cause).
void write_engine_table(const Report& report, const DeviceRoof& device, const RunResult& result, std::ostream& out,
                        const TableOptions& options = {});

}  // namespace roofsim
