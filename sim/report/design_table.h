#pragma once
// One console line of the report's "design" object: node, die area, cost and derived TDP.
#include <ostream>

#include "sim/results/report_model.h"

namespace roofsim {

void write_design_line(const Report& report, std::ostream& out);

}  // namespace roofsim
