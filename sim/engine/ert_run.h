#pragma once
// Runs an ERT plan (ert_plan.h) on the simulated device: every point's ops (a warm-up pass where the plan asks for one,
// then the runs of p and 2p passes) go into one workload, one after another, and run through the same elaboration
// and simulation as `roofsim run` (sim/engine/device.h, collect_run_result). SystemC allows one elaboration per
// process: call this once per process.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/engine/ert_plan.h"
#include "sim/graph/workload.h"

namespace roofsim {

struct ErtPointResult {
  Seconds short_run_s = 0;  // kernel time (from the end of the launch latency to the last write) of p passes
  Seconds long_run_s = 0;   // of 2p passes
  Seconds pass_s = 0;       // the better mean time per pass of the two runs
  FlopsPerSecond flops_per_s = 0;
  BytesPerSecond bytes_per_s = 0;  // bytes loaded and stored per second
  bool throttled = false;          // the power governor lowered the clock in either run
  bool measured = false;           // false when an interruption stopped the run before both runs finished
};

struct ErtRunResult {
  std::vector<ErtPointResult> points;  // one per plan point, in plan order
  bool complete = true;
  std::size_t measured_points = 0;
  std::string dram_model;   // "simple", "detailed" or "" without DRAM
  Seconds throttled_s = 0;  // busy time the power governor's lower clocks cost, over all ops
  std::uint64_t events = 0;
  Seconds wall_s = 0;
};

// The workload of a plan: per point its ops on a tensor of the point's working set, at addresses of its own (the
// points run one after another, each after the one before).
[[nodiscard]] Workload make_ert_workload(const ErtPlan& plan, const HardwareParams& hw);

// `progress(done, total)` is called between slices of the simulation with the points finished so far.
[[nodiscard]] ErtRunResult run_ert(const HardwareParams& hw, const ErtPlan& plan,
                                   const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace roofsim
