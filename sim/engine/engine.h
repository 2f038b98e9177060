#pragma once
// Runs a workload on one simulated device: elaborates the module tree (compute units, dispatcher, SRAM levels,
// DRAM channels) from the hardware parameters, lowers every op, simulates, collects statistics and checks the
// end-of-run invariants (executed FLOPs equal the lowering's count; bytes are conserved between levels; each op's
// unit-time adds up to units x span). SystemC allows one elaboration per process: call this once per process.
#include <vector>

#include "models/kernel/dram_interface.h"
#include "sim/config/hardware_params.h"
#include "sim/engine/run_result.h"
#include "sim/graph/workload.h"

namespace roofsim {

// Throws InputError for ops the hardware cannot run, std::logic_error when an invariant fails. A SIGINT or SIGTERM
// inside a DeferInterrupts scope (sim/core/interrupt.h) stops the simulation: the result is then not `complete` and
// holds the ops that finished.
// `dram_requests` (the detailed DRAM model only): every request the device's memory system sent to its DRAM, with the
// time it was sent, in that order.
struct EngineRunOptions {
  bool memoize = false;   // replay ops whose signature was simulated before (sim/engine/op_replay.h); false: --exact
  bool progress = false;  // print progress on stderr once the run takes long (sim/engine/progress.h)
  // with memoize: skip identical waves inside ops (sim/engine/wave_fast_forward.h)
  bool fast_forward = false;
};
[[nodiscard]] RunResult run_workload(const HardwareParams& hw, const Workload& workload,
                                     std::vector<DramRequest>* dram_requests = nullptr,
                                     const EngineRunOptions& options = {});

class Device;
// The statistics of a device whose simulation has ended (run_workload's second half; cluster runs call it per
// simulated rank). `wall_s` is the wall time the caller measured; `complete` is false when the simulation was
// stopped with work left, and then the end-of-run invariants are not checked and only finished ops are kept.
[[nodiscard]] RunResult collect_run_result(const HardwareParams& hw, const Workload& workload, const Device& device,
                                           Seconds wall_s, bool complete = true);

}  // namespace roofsim
