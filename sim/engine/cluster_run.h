#pragma once
// SPMD runs over a cluster: every rank runs the workload's graph on the cluster's device; a
// collective op waits until all ranks of its group (OpShape::group ranks, group_stride apart) reached it, is issued on
// the network model (models/net) over the group's devices, and ends on every member when the network finishes it.
// A pipeline's stages may each run their own order of the same ops (the schedule's, pipeline_schedule.h): then every
// rank runs its stage's graph. Compute is simulated for one representative per class of symmetric ranks
// (rank_symmetry.h: all ranks, or the ranks of each pipeline stage), the network for all ranks. Call once per process
// (SystemC elaborates once).
#include <cstdint>
#include <string>
#include <vector>

#include "models/net/collectives.h"
#include "sim/config/cluster_params.h"
#include "sim/engine/run_result.h"
#include "sim/graph/workload.h"

namespace roofsim {

struct ClusterRunOptions {
  bool collapse_symmetric = true;
  net::Algorithm algorithm = net::Algorithm::ring;
  // Replay ops whose signature a rank simulated before (sim/engine/op_replay.h), across ranks; false is `--exact`.
  bool memoize = false;
  // With memoize: skip identical waves inside ops that run alone on their device (sim/engine/wave_fast_forward.h).
  bool fast_forward = false;
  // Progress lines on stderr once the run takes over 2 s (sim/engine/progress.h), counted over the simulated ranks.
  bool progress = false;
};

// One group's instance of a collective op.
struct GroupCollectiveStats {
  std::size_t op = 0;  // index in the workload
  std::string name;
  std::string algorithm;
  std::uint64_t group = 0;  // GroupLayout::group_of its members (collective_sync.h); a send's: its sender
  std::uint64_t group_size = 0;
  std::uint64_t group_stride = 1;
  std::size_t graph = 0;  // the graph `op` indexes (ClusterRunResult::graphs)
  Bytes message_bytes = 0;
  Bytes bytes_sent_per_rank = 0;  // by the group's first rank, from the simulated schedule
  Seconds ready_s = 0;            // the last member reached it
  Seconds issue_s = 0;            // issued on the network (the communicator's previous collective done)
  Seconds finish_s = 0;
};

// Per-rank step figures of a simulated rank.
struct StepStats {
  Seconds step_s = 0;
  Seconds compute_s = 0;                // union of the compute ops' [launch, end]
  Seconds communication_s = 0;          // union of the rank's collectives' and sends'/receives' [reached, end]
  Seconds exposed_communication_s = 0;  // communication while no compute op ran
  std::vector<std::pair<Seconds, Seconds>> exposed_periods;  // when it was exposed, merged, in time order
  Flops flops = 0;
  Bytes network_bytes_sent = 0;
};

struct SimulatedRank {
  std::uint64_t rank = 0;
  std::size_t graph = 0;         // the graph it ran (ClusterRunResult::graphs)
  std::uint64_t represents = 1;  // ranks of its class
  RunResult result;              // collectives carry their network times
  StepStats step;
};

// A link direction's busy period: reservations merged where one begins before the previous ended.
struct LinkBusy {
  std::string name;  // "dev3->sw0"
  std::vector<std::pair<Seconds, Seconds>> periods;
};

struct ClusterRunResult {
  std::string cluster;
  std::uint64_t ranks = 0;
  // False when a signal stopped the run (sim/core/interrupt.h): `simulated` then holds each rank's finished ops
  // (RunResult::complete false) and nothing else is filled.
  bool complete = true;
  std::string symmetry;   // what was collapsed, and whether the run confirmed the symmetry
  bool symmetric = true;  // every collective's groups finished together
  std::vector<SimulatedRank> simulated;
  std::vector<const Workload*> graphs;            // the workload, or each pipeline stage's (the caller's)
  std::vector<GroupCollectiveStats> collectives;  // in issue order
  std::uint64_t network_events = 0;
  // Collectives the network replayed from a record, and replays another collective reached before their end (they
  // went on simulated from there).
  std::uint64_t collectives_replayed = 0, collectives_resumed = 0;
  std::vector<LinkBusy> links;  // links that carried anything, by link id
  Seconds sim_time_s = 0;
  Seconds wall_s = 0;
};

// Throws InputError when the workload does not fit the cluster (group sizes that do not divide the ranks).
[[nodiscard]] ClusterRunResult run_cluster(const ClusterParams& cluster, const Workload& workload,
                                           const ClusterRunOptions& options = {});
// A pipeline whose stages run the same ops in their own orders: stage_graphs[s] is the graph of the ranks of stage s
// (stage = rank / stride mod stages of its sends and receives). Every graph has the same collectives and the same
// sends and receives in each direction in the same order, so that the k-th send of a stage meets the k-th receive of
// its neighbour. Throws InputError as above, and when the graphs do not match the stages of their sends.
[[nodiscard]] ClusterRunResult run_cluster(const ClusterParams& cluster,
                                           const std::vector<const Workload*>& stage_graphs,
                                           const ClusterRunOptions& options = {});

// A device's injection bandwidth in the cluster's topology: the sum of its links' data bandwidth per direction (every
// device of the bundled topologies has the same, so device 0's).
[[nodiscard]] BytesPerSecond injection_bandwidth_bytes_per_s(const ClusterParams& cluster);

// Measure of a union of intervals (the step figures' building block).
[[nodiscard]] Seconds union_length(std::vector<std::pair<Seconds, Seconds>> intervals);
// The union of intervals as disjoint intervals in time order (empty ones dropped).
[[nodiscard]] std::vector<std::pair<Seconds, Seconds>> merge_intervals(
    std::vector<std::pair<Seconds, Seconds>> intervals);
// The parts of the union of `from` that no interval of `minus` covers.
[[nodiscard]] std::vector<std::pair<Seconds, Seconds>> subtract_intervals(
    std::vector<std::pair<Seconds, Seconds>> from, std::vector<std::pair<Seconds, Seconds>> minus);

}  // namespace roofsim
