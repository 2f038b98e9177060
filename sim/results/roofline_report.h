#pragma once
// The analytic report of `roofsim roofline`: compulsory bytes at every level, the device's row-hit expectations.
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// A report's head, the same for `roofline` and `run`: what ran on what, the device's levels and its roofline lines.
// `bytes_basis` says where the ops' bytes come from ("compulsory" or "simulated").
[[nodiscard]] Report report_head(const std::string& command, const std::string& bytes_basis, const Workload& workload,
                                 const HardwareParams& hardware, const DeviceRoof& device);

[[nodiscard]] Report make_roofline_report(const Workload& workload, const HardwareParams& hardware,
                                          const DeviceRoof& device);

}  // namespace roofsim
