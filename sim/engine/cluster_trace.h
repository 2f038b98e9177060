#pragma once
// trace.json of a cluster run in the Chrome trace-event format (chrome://tracing, Perfetto): one process per
// simulated rank with a track of its compute ops and a track of its collectives, and a "network" process with one
// track per link direction that carried data, showing its busy periods. Times in microseconds, as the format wants.
#include <nlohmann/json.hpp>

#include "sim/engine/cluster_run.h"

namespace roofsim {

[[nodiscard]] nlohmann::ordered_json cluster_trace_json(const ClusterRunResult& result);

}  // namespace roofsim
