#include <iostream>

#include "sim/cli/app.h"
#include "sim/graph/work_estimate.h"

namespace roofsim::cli {

void check_run_work(const Workload& workload, const HardwareParams& hardware, std::uint64_t ranks,
                    const WorkLimits& limits) {
  const auto estimate = estimate_work(workload, hardware, ranks);
  check_work_limit(SourcePos{workload.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.tiles, limits.tiles, "tiles");
  if (worth_announcing(estimate)) std::cerr << "roofsim: a long run: " << estimate_text(estimate) << "\n";
}

}  // namespace roofsim::cli
