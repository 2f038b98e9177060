#pragma once
// Which algorithm runs a collective when the user asks for `auto`: the one the simulation finds fastest. Candidates
// are tried in the order of their alpha-beta predictions; one whose busiest link alone needs longer than the best
// time found so far (a true lower bound: bytes / bandwidth plus per-message overheads on that link) is not simulated.
#include <optional>
#include <vector>

#include "models/net/collectives.h"
#include "models/net/network_core.h"
#include "models/net/protocol.h"

namespace roofsim::net {

// The order of ranks an algorithm expects: the devices' natural order for hierarchical (its levels index it), the
// topology's ring order for the others.
[[nodiscard]] std::vector<NodeId> ranks_for(Algorithm algorithm, const Topology& topology);

// One order of the devices per channel (NCCL's channels: rings that split the buffer between them).
// - two_level (rail-aligned rings, as NCCL's graph search builds them on rail-optimized clusters): channel c enters
//   and leaves each node through GPUs a = c mod g and b = c + 1 mod g (g devices per node), a node entered at a
//   leaving at b and the next entered at b leaving at a, so every inter-node step goes from a GPU to the GPU of the
//   same index (the same rail) on the next node, and g channels use every NIC once in each direction. With an odd
//   node count the step that closes the ring crosses rails.
// - other topologies: even channels follow ring_order(), odd ones run it backward, which uses the other direction
//   of every full-duplex link.
[[nodiscard]] std::vector<std::vector<NodeId>> channel_orders(const Topology& topology, std::size_t channels);

// CollNet's aggregation switches of a two_level cluster: per device index d within a node, the switch midway on the
// route between device d of the first node and device d of the last (on a rail-optimized fabric with every node on
// one leaf per rail, that rail's leaf; else the spine where the rail's routes meet). Empty on other topologies and on
// one node.
[[nodiscard]] std::vector<NodeId> aggregation_switches(const Topology& topology);

// The channels NCCL would open for a ring: one per NIC of a node on two_level (one ring per rail); two on ring,
// torus and fully connected topologies (one per link direction); one on a switch, whose links every ring shares.
[[nodiscard]] std::size_t default_channels(const Topology& topology);

// max over link directions of (bytes / bandwidth + messages x overhead) for the schedule's transfers.
[[nodiscard]] Seconds link_load_bound_s(const Schedule& schedule, const Topology& topology);

struct AlgorithmChoice {
  Algorithm algorithm = Algorithm::ring;
  CollectiveRun run;
  std::size_t simulated = 0;  // candidates simulated (the rest were ruled out by their bound)
};

// What NCCL's tuner does (src/graph/tuning.cc, ncclTopoTuneModel and the per-size choice in enqueue.cc): among ring,
// tree and, where the switch reduces, in-switch reduction (NVLS), where the fabric switches reduce, CollNet, each with
// every protocol it runs with (or only `protocol`, when given), the pair whose predicted time is least. The prediction
// is this model's (alpha_beta.h), so the choice follows the simulated mechanism without simulating every candidate.
// `options` gives the packet size and reduction costs; its protocol is replaced per candidate.
struct TunedChoice {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  Seconds predicted_s = 0;
};
[[nodiscard]] TunedChoice tuned_choice(const Topology& topology, CollectiveRequest request, NetworkOptions options,
                                       std::optional<Protocol> protocol = std::nullopt,
                                       std::optional<Algorithm> algorithm = std::nullopt);

// `request.ranks` is replaced per candidate by ranks_for(); `request.algorithm` is ignored.
[[nodiscard]] AlgorithmChoice fastest_algorithm(const Topology& topology, CollectiveRequest request,
                                                const NetworkOptions& options);

}  // namespace roofsim::net
