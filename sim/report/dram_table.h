#pragma once
// The per-op DRAM table of `roofsim run` with the detailed model (sim/engine/dram_op_stats.h measured it): row-hit
// rate, refresh share, DRAM efficiency, B(h) and the time lost to row misses, refresh and turnarounds.
#include <iosfwd>

#include "sim/engine/run_result.h"

namespace roofsim {

// Nothing with the simple model.
void write_dram_table(const RunResult& result, std::ostream& out);

}  // namespace roofsim
