#pragma once
// `roofsim run`'s report: the report model filled with the simulated bytes, times and achieved rates, so that each
// op's six ceilings come from the bytes the simulation measured at each level; plus the engine's own per-op figures
// (tiles, waves, efficiency, unit-time by cause, the gap by cause) as extra report fields.
#include "sim/config/hardware_params.h"
#include "sim/engine/run_result.h"
#include "sim/graph/workload.h"
#include "sim/results/gap_attribution.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// Efficiency of an op: the binding ceiling's time over the simulated time (achieved / binding ceiling). The time is
// what counts, so an op without FLOPs (a copy, a collective) has one too: its bytes at the binding memory or link.
[[nodiscard]] double run_efficiency(const OpReport& op, const DeviceRoof& device);

// The binding ceiling's time for an op (the numerator of run_efficiency).
[[nodiscard]] Seconds ceiling_time_s(const OpReport& op, const DeviceRoof& device);

// A result that is not complete (a signal stopped the run) gives the report of its finished ops, not `complete`.
[[nodiscard]] Report make_run_report(const Workload& workload, const HardwareParams& hardware, const DeviceRoof& device,
                                     const RunResult& result);

// The gap of an op between its binding ceiling's time and its simulated time, split by measured cause
// (gap_attribution.h); report.json carries it as the op's "gap" object.
[[nodiscard]] GapAttribution op_gap(const OpReport& op, const DeviceRoof& device, const OpRunStats& stats,
                                    std::uint64_t units);

}  // namespace roofsim
