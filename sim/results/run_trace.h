#pragma once
// The trace of a run: the engine's recorded op and tile spans turned into trace data for sim/report/trace_writer.h.
// No file is written here.
#include "sim/config/hardware_params.h"
#include "sim/engine/run_result.h"
#include "sim/graph/workload.h"
#include "sim/results/trace_data.h"

namespace roofsim {

// Counter tracks of the power trace: total power (W, the cap in its name), its parts (compute dynamic, DRAM and links
// dynamic, static) and the compute clock (GHz), appended to `data.counters`.
void add_power_counters(const PowerRunStats& power, TraceData& data);

[[nodiscard]] TraceData make_trace_data(const Workload& workload, const HardwareParams& hardware,
                                        const RunResult& result);

}  // namespace roofsim
