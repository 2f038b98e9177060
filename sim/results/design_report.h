#pragma once
// The report's "design" object: the device's die area by part, its cost, its power budget (sim/design), and the cost
// per TFLOP/s of peak and, for a run, of what the run achieved. Absent for a device without [technology].
#include "sim/config/hardware_params.h"
#include "sim/results/report_model.h"

namespace roofsim {

void add_design_report(Report& report, const HardwareParams& hardware);

}  // namespace roofsim
