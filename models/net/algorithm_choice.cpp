#include "models/net/algorithm_choice.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "models/net/alpha_beta.h"

namespace roofsim::net {

std::vector<NodeId> ranks_for(Algorithm algorithm, const Topology& topology) {
  if (algorithm != Algorithm::hierarchical && algorithm != Algorithm::collnet) return topology.ring_order();
  std::vector<NodeId> natural(topology.devices());
  for (NodeId d = 0; d < topology.devices(); ++d) natural[d] = d;
  return natural;
}

std::vector<std::vector<NodeId>> channel_orders(const Topology& topology, std::size_t channels) {
  std::vector<std::vector<NodeId>> orders;
  if (topology.kind() != TopologyKind::two_level) {
    const auto forward = topology.ring_order();
    for (std::size_t c = 0; c < channels; ++c) {
      orders.push_back(forward);
      if (c % 2 == 1) std::reverse(orders.back().begin(), orders.back().end());
    }
    return orders;
  }
  const auto per_node = static_cast<NodeId>(topology.levels()[0]);
  const auto nodes = static_cast<NodeId>(topology.levels()[1]);
  for (std::size_t c = 0; c < channels; ++c) {
    const auto a = static_cast<NodeId>(c % per_node);
    const auto b = static_cast<NodeId>((c + 1) % per_node);
    std::vector<NodeId> order;
    for (NodeId n = 0; n < nodes; ++n) {
      const NodeId entry = n % 2 == 0 ? a : b;
      const NodeId exit = n % 2 == 0 ? b : a;
      const NodeId base = n * per_node;
      order.push_back(base + entry);
      for (NodeId d = 0; d < per_node; ++d) {
        if (d != entry && d != exit) order.push_back(base + d);
      }
      if (exit != entry) order.push_back(base + exit);
    }
    orders.push_back(std::move(order));
  }
  return orders;
}

std::vector<NodeId> aggregation_switches(const Topology& topology) {
  std::vector<NodeId> switches;
  if (topology.kind() != TopologyKind::two_level || topology.levels()[1] < 2) return switches;
  const auto per_node = static_cast<NodeId>(topology.levels()[0]);
  const auto last = static_cast<NodeId>(topology.levels()[1] - 1) * per_node;
  for (NodeId d = 0; d < per_node; ++d) {
    const auto& route = topology.route(d, last + d);
    switches.push_back(topology.link(route[route.size() / 2 - 1]).to);
  }
  return switches;
}

std::size_t default_channels(const Topology& topology) {
  switch (topology.kind()) {
    case TopologyKind::two_level: return topology.nics_per_node();
    case TopologyKind::switch_star: return 1;
    case TopologyKind::ring:
    case TopologyKind::torus:
    case TopologyKind::fully_connected: return 2;
  }
  return 1;
}

Seconds link_load_bound_s(const Schedule& schedule, const Topology& topology) {
  std::vector<double> busy_s(topology.link_count(), 0.0);
  for (OpId id = 0; id < schedule.size(); ++id) {
    const auto& op = schedule.op(id);
    if (op.kind != OpKind::transfer) continue;
    for (const LinkId link : topology.route(op.src, op.dst)) {
      const auto& params = topology.link(link).params;
      busy_s[link] += static_cast<double>(op.bytes) / params.payload_bandwidth_bytes_per_s() + params.overhead_s;
    }
  }
  return busy_s.empty() ? 0.0 : *std::max_element(busy_s.begin(), busy_s.end());
}

TunedChoice tuned_choice(const Topology& topology, CollectiveRequest request, NetworkOptions options,
                         std::optional<Protocol> protocol, std::optional<Algorithm> algorithm) {
  TunedChoice best;
  bool found = false;
  const std::vector<Algorithm> tuned = {Algorithm::ring, Algorithm::tree, Algorithm::in_switch, Algorithm::collnet};
  const auto candidates = algorithm ? std::vector<Algorithm>{*algorithm} : tuned;
  const auto channels = request.channels;
  const Bytes configured_chunk_bytes = request.chunk_bytes;
  for (const auto candidate : candidates) {
    request.algorithm = candidate;
    request.channels = candidate == Algorithm::ring ? channels : std::vector<std::vector<NodeId>>{};
    if (!algorithm) request.ranks = ranks_for(candidate, topology);
    if (!unsupported_reason(request).empty()) continue;
    for (const auto each : kAllProtocols) {
      if (protocol && each != *protocol) continue;
      if (!protocol_supported(each, candidate)) continue;
      options.protocol = protocol_cost(each, candidate);
      request.send_window_bytes = options.protocol.buffer_payload_bytes();
      request.chunk_bytes = options.protocol.chunk_bytes(configured_chunk_bytes);
      const Seconds predicted_s = predict(request, topology, options).time_s;
      if (!found || predicted_s < best.predicted_s) {
        found = true;
        best = TunedChoice{candidate, each, predicted_s};
      }
    }
  }
  return best;
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
