#pragma once
// The outputs of `roofsim ert` other than its chart: the console tables (measured ceilings beside the analytic ones
// with their ratio), ert.json (everything: plan, points, ceilings, notes), ert_points.csv and ert_ceilings.csv.
// Deterministic: fixed formats, no wall times in the files.
#include <iosfwd>

#include "sim/results/ert_report.h"

namespace roofsim {

void write_ert_table(const ErtReport& report, std::ostream& out);
void write_ert_json(const ErtReport& report, std::ostream& out);
void write_ert_points_csv(const ErtReport& report, std::ostream& out);
void write_ert_ceilings_csv(const ErtReport& report, std::ostream& out);

}  // namespace roofsim
