#pragma once
// The writers of a cluster run: the per-step table (compute, communication, exposed communication, ceilings), the
// step gaps by cause and the collectives' table on the console, and cluster.json with the collectives' ready, issue
// and finish times.
#include <iosfwd>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/cluster_run.h"
#include "sim/results/report_model.h"

namespace roofsim {

// rank_reports: make_rank_report() (sim/results/cluster_report.h) of each simulated rank, in order.
void write_cluster_table(const ClusterRunResult& result, const std::vector<Report>& rank_reports, std::ostream& out);
[[nodiscard]] nlohmann::ordered_json cluster_json(const ClusterRunResult& result,
                                                  const std::vector<Report>& rank_reports);

}  // namespace roofsim
