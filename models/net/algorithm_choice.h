#pragma once
// Which algorithm runs a collective when the user asks for `auto`: the one the simulation finds fastest. Candidates
// are tried in the order of their alpha-beta predictions; one whose busiest link alone needs longer than the best
// time found so far (a true lower bound: bytes / bandwidth plus per-message overheads on that link) is not simulated.
#include <vector>

#include "models/net/collectives.h"
#include "models/net/network_core.h"

namespace roofsim::net {

// The order of ranks an algorithm expects: the devices' natural order for hierarchical (its levels index it), the
// topology's ring order for the others.
[[nodiscard]] std::vector<NodeId> ranks_for(Algorithm algorithm, const Topology& topology);

// max over link directions of (bytes / bandwidth + messages x overhead) for the schedule's transfers.
[[nodiscard]] Seconds link_load_bound_s(const Schedule& schedule, const Topology& topology);

struct AlgorithmChoice {
  Algorithm algorithm = Algorithm::ring;
  CollectiveRun run;
  std::size_t simulated = 0;  // candidates simulated (the rest were ruled out by their bound)
};

// `request.ranks` is replaced per candidate by ranks_for(); `request.algorithm` is ignored.
[[nodiscard]] AlgorithmChoice fastest_algorithm(const Topology& topology, CollectiveRequest request,
                                                const NetworkOptions& options);

}  // namespace roofsim::net
