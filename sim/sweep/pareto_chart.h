#pragma once
// pareto.svg: every point that ran, placed by the sweep's first two Pareto objectives (both minimized), coloured by
// its workload group (sweep_results.h pareto_group), each group's Pareto-optimal points joined into its front.
#include <filesystem>
#include <vector>

#include "sim/sweep/sweep_results.h"

namespace roofsim {

// Writes DIR/pareto.svg when the sweep names Pareto objectives; returns whether it did.
bool write_pareto_chart(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        const std::vector<PointResult>& results, const std::filesystem::path& dir);

}  // namespace roofsim
