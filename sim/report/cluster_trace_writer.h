#pragma once
// trace.json of a cluster run in the Chrome trace-event format (chrome://tracing, Perfetto): one process per
// simulated rank with a track of its compute ops, a track of its collectives, a track of the periods its communication
// was exposed (no compute op ran) and a "step" slice whose arguments are the step's figures (compute, communication,
// exposed communication, the communication-aware and binding ceilings), and a "network" process with one
// track per link direction that carried data, showing its busy periods. Times in microseconds, as the format wants.
#include <iosfwd>
#include <vector>

#include "sim/engine/cluster_run.h"
#include "sim/report/trace_writer.h"
#include "sim/results/report_model.h"

namespace roofsim {

// rank_reports: make_rank_report() of each simulated rank, in order. Written event by event (TraceEventStream): a
// 256-rank torus's link busy periods are some 5 x 10^5 events.
// The links' busy periods are written within options.max_link_events (link_trace_slices.h).
void write_cluster_trace_json(const ClusterRunResult& result, const std::vector<Report>& rank_reports,
                              const TraceOptions& options, std::ostream& out);

}  // namespace roofsim
