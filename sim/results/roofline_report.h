#pragma once
// The analytic report of `roofsim roofline`: compulsory bytes at every level, the device's row-hit expectations.
#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

[[nodiscard]] Report make_roofline_report(const Workload& workload, const HardwareParams& hardware,
                                          const DeviceRoof& device);

}  // namespace roofsim
