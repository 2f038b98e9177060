#pragma once
// ops.csv columns for the gap attribution of `roofsim run`, read from each op's "gap" extra field. The set is fixed
// (every cause any run reports has its column, empty where the op has no gap), so that ops.csv has the same columns
// for every run; the time a primary engine waited on an engine other than the vector and special-function ones is
// summed into gap_other_engines_s.
#include <string>
#include <vector>

#include "sim/results/report_model.h"

namespace roofsim {

// Column names, units included: gap_ceiling_time_s, gap_sim_time_s, gap_s, gap_<cause>_s...
[[nodiscard]] const std::vector<std::string>& gap_csv_columns();

// The op's cells for those columns (each preceded by a comma); empty cells where the op has no gap, 0 for a cause the
// op's gap does not have.
[[nodiscard]] std::string gap_csv_cells(const OpReport& op);

}  // namespace roofsim
