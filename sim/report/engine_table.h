#pragma once
// The engine's table of `roofsim run`: per op its tiling, tiles, waves, efficiency and where the units' time went,
// then each op's gap to its binding ceiling by cause.
#include <iosfwd>

#include "sim/engine/run_result.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

void write_engine_table(const Report& report, const DeviceRoof& device, const RunResult& result, std::ostream& out);

}  // namespace roofsim
