#pragma once
// The report model of a cluster run: the roofline report of each simulated rank with the network bytes the
// simulation sent (so OI_net and the communication-aware ceiling come from simulated bytes), one more row per rank
// for the whole step, and the gaps of the step and of each collective by cause. sim/report/cluster_writers.h writes
// the per-step table and cluster.json from it.
#include <utility>
#include <vector>

#include "sim/config/cluster_params.h"
#include "sim/engine/cluster_run.h"
#include "sim/graph/workload.h"
#include "sim/results/gap_attribution.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// The device's roof in the cluster: the device file's figures, with B_net the device's injection bandwidth in the
// topology (the sum of its links' bandwidth per direction) when the device file has no interconnect bandwidth.
[[nodiscard]] DeviceRoof cluster_device_roof(const ClusterParams& cluster);

// The roofline report of one simulated rank; its last row, kind "step", is the rank's whole step: all FLOPs, all
// bytes per level, all bytes sent, over the step time.
[[nodiscard]] Report make_rank_report(const Workload& workload, const ClusterParams& cluster, const DeviceRoof& device,
                                      const SimulatedRank& rank, const ClusterRunResult& result);

// The step's roofline (the "step" row's): its binding ceiling and the communication-aware one.
[[nodiscard]] const OpReport& step_row(const Report& rank_report);

// The step's gap to its binding ceiling by cause: compute, exposed communication, dependencies and launch (the
// time neither ran); they add up to the step time, so the causes add up to the gap (gap_attribution.h).
[[nodiscard]] GapAttribution step_gap(const OpReport& step, const StepStats& stats);
// A collective op's gap on a rank: its time from reaching it to its end, exposed or overlapped by compute, against
// the time its bytes take at the device's network bandwidth.
[[nodiscard]] GapAttribution collective_gap(const OpReport& row, const OpRunStats& op, const DeviceRoof& device,
                                            const std::vector<std::pair<Seconds, Seconds>>& compute_merged);

}  // namespace roofsim
