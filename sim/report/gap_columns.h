#pragma once
// ops.csv columns for the gap attribution of `roofsim run`: read from each op's "gap" extra field, so the CSV writer
// needs no knowledge of the engine. No columns when no op has a gap (`roofsim roofline`).
#include <string>
#include <vector>

#include "sim/results/report_model.h"

namespace roofsim {

// Column names, units included: gap_ceiling_time_s, gap_sim_time_s, gap_s, gap_<cause>_s...
[[nodiscard]] std::vector<std::string> gap_csv_columns(const Report& report);

// The op's cells for those columns (each preceded by a comma); empty cells where the op has no gap.
[[nodiscard]] std::string gap_csv_cells(const OpReport& op, const std::vector<std::string>& columns);

}  // namespace roofsim
