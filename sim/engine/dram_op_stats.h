#pragma once
// The DRAM-aware roofline as a measurement: per op, what the detailed DRAM model measured for the requests
// the op issued (row-hit rate, refresh share, efficiency), the DRAM-aware bandwidth B(h) at that row-hit rate
// (sim/roofline/dram_bandwidth.h), and the time the op lost to row misses, refresh and bus turnarounds.
#include "models/dram/engine_dram_adapter.h"
#include "sim/config/dram_params.h"
#include "sim/engine/run_result.h"

namespace roofsim {

// Fills OpRunStats::dram of every op with DRAM bytes, and the run's conservation and device-wide figures. Throws
// std::logic_error when, in a complete run, the bursts the controller served differ from the engine's requests rounded
// to bursts.
void fill_dram_op_stats(EngineDramAdapter& dram, const DramParams& params, RunResult& result);

}  // namespace roofsim
