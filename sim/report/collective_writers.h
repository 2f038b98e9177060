#pragma once
// The outputs of `roofsim collective`: the nccl-tests-style table (size, count, type, algorithm, time, algbw, busbw)
// beside the alpha-beta-gamma prediction, with each algorithm's formula after it; and collective.csv.
#include <iosfwd>
#include <string>

#include "sim/config/cluster_params.h"
#include "sim/engine/collective_sweep.h"

namespace roofsim {

// `op_name` and `algorithm_name` as the user gave them ("allreduce", "auto").
void write_collective_table(const CollectiveSweep& sweep, const ClusterParams& cluster, const std::string& op_name,
                            const std::string& algorithm_name, std::ostream& out);
void write_collective_csv(const CollectiveSweep& sweep, const ClusterParams& cluster, const std::string& op_name,
                          std::ostream& out);

}  // namespace roofsim
