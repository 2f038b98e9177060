#pragma once
// ert.svg: the ERT-style chart of `roofsim ert` (Lo et al., PMBS 2014, their figures): every measured point at its
// intensity (FLOPs per byte loaded and stored) and FLOP/s, coloured by the band of its working set, with the ceilings
// fitted from them (solid: a diagonal per memory band, a horizontal per engine and data type) and the analytic lines
// (dashed). Deterministic; class names on the elements (plot-area, point, measured-ceiling, analytic-ceiling) let
// tests parse it.
#include <iosfwd>

#include "sim/results/ert_report.h"

namespace roofsim {

void write_ert_svg(const ErtReport& report, std::ostream& out);

}  // namespace roofsim
