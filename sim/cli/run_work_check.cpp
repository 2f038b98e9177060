#include <iostream>

#include "sim/cli/app.h"
#include "sim/graph/work_estimate.h"

namespace roofsim::cli {

void check_run_work(const Workload& workload, const HardwareParams& hardware, std::uint64_t ranks,
                    const WorkLimits& limits) {
  const auto estimate = estimate_work(workload, hardware, ranks);
  check_work_limit(SourcePos{workload.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.tiles, limits.tiles, "tiles");
  // Each unit is a module with its own events and state: a million of them exhaust memory while elaborating.
  check_work_limit(SourcePos{hardware.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.units, limits.compute_units, "compute units");
  check_work_limit(SourcePos{workload.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.compulsory_bytes, limits.dram_traffic_bytes, "bytes of compulsory DRAM traffic");
  if (worth_announcing(estimate)) std::cerr << "roofsim: a long run: " << estimate_text(estimate) << "\n";
}

}  // namespace roofsim::cli
