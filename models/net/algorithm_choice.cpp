#include "models/net/algorithm_choice.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "models/net/alpha_beta.h"

namespace roofsim::net {

std::vector<NodeId> ranks_for(Algorithm algorithm, const Topology& topology) {
  if (algorithm != Algorithm::hierarchical) return topology.ring_order();
  std::vector<NodeId> natural(topology.devices());
  for (NodeId d = 0; d < topology.devices(); ++d) natural[d] = d;
  return natural;
}

Seconds link_load_bound_s(const Schedule& schedule, const Topology& topology) {
  std::vector<double> busy_s(topology.link_count(), 0.0);
  for (OpId id = 0; id < schedule.size(); ++id) {
    const auto& op = schedule.op(id);
    if (op.kind != OpKind::transfer) continue;
    for (const LinkId link : topology.route(op.src, op.dst)) {
      const auto& params = topology.link(link).params;
      busy_s[link] += static_cast<double>(op.bytes) / params.bandwidth_bytes_per_s + params.overhead_s;
    }
  }
  return busy_s.empty() ? 0.0 : *std::max_element(busy_s.begin(), busy_s.end());
}

AlgorithmChoice fastest_algorithm(const Topology& topology, CollectiveRequest request, const NetworkOptions& options) {
  struct Candidate {
    Algorithm algorithm;
    Seconds bound_s;     // the link-load lower bound
    Seconds expected_s;  // the larger of the bound and the alpha-beta prediction: the order of trial
  };
  std::vector<Candidate> candidates;
  for (const auto algorithm : kAllAlgorithms) {
    request.algorithm = algorithm;
    request.ranks = ranks_for(algorithm, topology);
    if (!unsupported_reason(request).empty()) continue;
    const Seconds bound_s = link_load_bound_s(build_schedule(request), topology);
    const Seconds predicted_s = predict(request, topology, options.reduction.gamma_s_per_byte()).time_s;
    candidates.push_back({algorithm, bound_s, std::max(bound_s, predicted_s)});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.expected_s < b.expected_s; });
  AlgorithmChoice best;
  bool found = false;
  for (const auto& candidate : candidates) {
    if (found && candidate.bound_s >= best.run.time_s) continue;
    request.algorithm = candidate.algorithm;
    request.ranks = ranks_for(candidate.algorithm, topology);
    auto schedule = std::make_shared<const Schedule>(build_schedule(request));
    NetworkCore core(topology, options);
    const auto id = core.issue(schedule, 0);
    (void)core.run();
    ++best.simulated;
    const Seconds time_s = to_seconds(core.finish_fs(id));
    if (!found || time_s < best.run.time_s) {
      found = true;
      best.algorithm = candidate.algorithm;
      best.run = CollectiveRun{time_s, core.events(), schedule->transfers()};
    }
  }
  return best;
}

}  // namespace roofsim::net
