#pragma once
// The trace of a run (issue 5 item 4): the engine's recorded op and tile spans turned into trace data for
// sim/report/trace_writer.h. No file is written here.
#include "sim/engine/run_result.h"
#include "sim/graph/workload.h"
#include "sim/report/trace_writer.h"

namespace roofsim {

[[nodiscard]] TraceData make_trace_data(const Workload& workload, const HardwareParams& hardware,
                                        const RunResult& result);

}  // namespace roofsim
