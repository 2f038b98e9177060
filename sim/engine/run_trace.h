#pragma once
// The trace of a run (issue 5 item 4): the engine's recorded op and tile spans turned into trace data for
// sim/report/trace_writer.h. No file is written here.
#include "sim/engine/run_result.h"
#include "sim/graph/workload.h"
#include "sim/report/trace_writer.h"

namespace roofsim {

// Counter tracks of the power trace (issue 8 item 5): total power (W, the cap in its name), its parts (compute
// dynamic, DRAM and links dynamic, static) and the compute clock (GHz), appended to `data.counters`.
void add_power_counters(const PowerRunStats& power, TraceData& data);

[[nodiscard]] TraceData make_trace_data(const Workload& workload, const HardwareParams& hardware,
                                        const RunResult& result);

}  // namespace roofsim
