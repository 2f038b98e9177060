#include "models/net/alpha_beta.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace roofsim::net {

PathCost path_cost(const Topology& topology, NodeId from, NodeId to) {
  PathCost cost;
  for (const LinkId id : topology.route(from, to)) {
    const auto& params = topology.link(id).params;
    cost.latency_s += params.latency_s;
    cost.overhead_s += params.overhead_s;
    cost.beta_s_per_byte = std::max(cost.beta_s_per_byte, 1.0 / params.bandwidth_bytes_per_s);
  }
  return cost;
}

namespace {

PathCost worst(PathCost a, const PathCost& b) {
  a.latency_s = std::max(a.latency_s, b.latency_s);
  a.overhead_s = std::max(a.overhead_s, b.overhead_s);
  a.beta_s_per_byte = std::max(a.beta_s_per_byte, b.beta_s_per_byte);
  return a;
}

double chunks(double bytes, double chunk_bytes) {
  return bytes <= chunk_bytes ? 1.0 : std::ceil(bytes / chunk_bytes);
}

// Ring phases on q ranks of a buffer of s bytes (Thakur et al. 2005, section 4; Patarasuk and Yuan 2009).
double ring_time(CollectiveOp op, double q, double s, const PathCost& c, double gamma) {
  const double a = c.alpha_s();
  const double b = c.beta_s_per_byte;
  const double f = (q - 1.0) / q;
  switch (op) {
    case CollectiveOp::allreduce: return 2.0 * (q - 1.0) * a + 2.0 * f * s * b + f * s * gamma;
    case CollectiveOp::allgather: return (q - 1.0) * a + f * s * b;
    case CollectiveOp::reducescatter: return (q - 1.0) * a + f * s * (b + gamma);
    default: return 0.0;
  }
}

PathCost ring_cost(const Topology& topology, const std::vector<NodeId>& ranks,
                   const std::vector<std::size_t>& members) {
  PathCost cost;
  for (std::size_t i = 0; i < members.size(); ++i) {
    cost = worst(cost, path_cost(topology, ranks[members[i]], ranks[members[(i + 1) % members.size()]]));
  }
  return cost;
}

// Direct exchanges are bounded by their busiest link: the slowest link direction must carry all its bytes and pay
// the overhead of every message (the max-link-load refinement of the alpha-beta model).
struct Load {
  double time_s = 0;
  Seconds latency_s = 0;
};
Load link_load(const Topology& topology, const std::vector<std::tuple<NodeId, NodeId, double>>& messages,
               double chunk_bytes) {
  std::map<LinkId, double> busy;
  Load load;
  for (const auto& [from, to, bytes] : messages) {
    const double k = chunks(bytes, chunk_bytes);
    Seconds latency = 0;
    for (const LinkId id : topology.route(from, to)) {
      const auto& params = topology.link(id).params;
      busy[id] += bytes / params.bandwidth_bytes_per_s + k * params.overhead_s;
      latency += params.latency_s;
    }
    load.latency_s = std::max(load.latency_s, latency);
  }
  for (const auto& entry : busy) load.time_s = std::max(load.time_s, entry.second);
  return load;
}

// What every algorithm's formula reads of a request: p ranks, a buffer of s bytes in chunks of `chunk` bytes.
struct Problem {
  [[nodiscard]] Prediction ring() const;
  [[nodiscard]] Prediction halving_doubling() const;
  [[nodiscard]] Prediction direct() const;
  [[nodiscard]] Prediction tree() const;
  [[nodiscard]] Prediction hierarchical() const;
  [[nodiscard]] Prediction in_switch() const;

  const CollectiveRequest& request;
  const Topology& topology;
  Seconds gamma;
  const std::vector<NodeId>& ranks;
  std::size_t p_count;
  double p, s, chunk, f, log_p;
};

// Ring phases, and a pipelined ring broadcast of k chunks (Thakur et al. 2005, section 4).
Prediction Problem::ring() const {
  Prediction prediction;
  std::vector<std::size_t> all(ranks.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto c = ring_cost(topology, ranks, all);
  prediction.cost = c;
  if (request.op == CollectiveOp::broadcast) {
    const double k = chunks(s, chunk);
    const double piece = s / k;
    prediction.time_s =
        (p - 1.0) * (c.alpha_s() + piece * c.beta_s_per_byte) + (k - 1.0) * (c.overhead_s + piece * c.beta_s_per_byte);
    prediction.formula = "(p-1)(a + c b) + (k-1)(o + c b)";
    return prediction;
  }
  prediction.time_s = ring_time(request.op, p, s, c, gamma);
  prediction.formula = request.op == CollectiveOp::allreduce   ? "2(p-1)a + 2(p-1)/p S b + (p-1)/p S g"
                       : request.op == CollectiveOp::allgather ? "(p-1)a + (p-1)/p S b"
                                                               : "(p-1)a + (p-1)/p S (b + g)";
  return prediction;
}

// Recursive halving and doubling: log2(p) steps whose worst path is any partner pair's (Thakur et al. 2005).
Prediction Problem::halving_doubling() const {
  Prediction prediction;
  PathCost c;
  for (std::size_t i = 0; i < p_count; ++i) {
    for (std::size_t d = 1; d < p_count; d <<= 1) {
      if ((i ^ d) < p_count) c = worst(c, path_cost(topology, ranks[i], ranks[i ^ d]));
      if (request.op == CollectiveOp::broadcast && i + d < p_count) {
        c = worst(c, path_cost(topology, ranks[i], ranks[i + d]));
      }
    }
  }
  prediction.cost = c;
  const double a = c.alpha_s();
  const double b = c.beta_s_per_byte;
  switch (request.op) {
    case CollectiveOp::allreduce:
      prediction.time_s = 2.0 * log_p * a + 2.0 * f * s * b + f * s * gamma;
      prediction.formula = "2 log2(p) a + 2(p-1)/p S b + (p-1)/p S g";
      break;
    case CollectiveOp::reducescatter:
      prediction.time_s = log_p * a + f * s * (b + gamma);
      prediction.formula = "log2(p) a + (p-1)/p S (b + g)";
      break;
    case CollectiveOp::allgather:
      prediction.time_s = log_p * a + f * s * b;
      prediction.formula = "log2(p) a + (p-1)/p S b";
      break;
    default:
      prediction.time_s = log_p * (a + s * b);
      prediction.formula = "log2(p) (a + S b)";
      break;
  }
  return prediction;
}

// Every rank sends to every other at once: bounded by the busiest link direction.
Prediction Problem::direct() const {
  Prediction prediction;
  std::vector<std::tuple<NodeId, NodeId, double>> messages;
  for (std::size_t i = 0; i < p_count; ++i) {
    for (std::size_t d = 0; d < p_count; ++d) {
      if (d == i || (request.op == CollectiveOp::broadcast && i != request.root)) continue;
      const double bytes = request.op == CollectiveOp::broadcast ? s : s / p;
      messages.emplace_back(ranks[i], ranks[d], bytes);
    }
  }
  const auto load = link_load(topology, messages, chunk);
  for (const auto& message : messages) {
    prediction.cost = worst(prediction.cost, path_cost(topology, std::get<0>(message), std::get<1>(message)));
  }
  prediction.cost.latency_s = load.latency_s;
  const double phase = load.latency_s + load.time_s;
  const bool reduces = request.op == CollectiveOp::allreduce || request.op == CollectiveOp::reducescatter;
  prediction.time_s = (request.op == CollectiveOp::allreduce ? 2.0 : 1.0) * phase + (reduces ? f * s * gamma : 0.0);
  prediction.formula = request.op == CollectiveOp::allreduce ? "2(L + max link load) + (p-1)/p S g"
                       : reduces                             ? "L + max link load + (p-1)/p S g"
                                                             : "L + max link load";
  return prediction;
}

// Pipelined double binary trees (two for allreduce, each carrying half the buffer; one otherwise).
Prediction Problem::tree() const {
  Prediction prediction;
  const auto trees = double_binary_tree(p_count);
  const std::size_t used_trees = request.op == CollectiveOp::allreduce ? 2 : 1;
  const auto rank_of = [&](std::size_t position) {
    return request.op == CollectiveOp::allreduce ? ranks[position] : ranks[(position + request.root) % p_count];
  };
  PathCost c;
  std::map<LinkId, double> uses;  // tree edges (both directions for allreduce) per link direction
  double height = 0;
  for (std::size_t t = 0; t < used_trees; ++t) {
    height = std::max(height, static_cast<double>(trees[t].height()));
    for (std::size_t i = 0; i < p_count; ++i) {
      const int parent = trees[t].parent[i];
      if (parent < 0) continue;
      const auto up = rank_of(static_cast<std::size_t>(parent));
      c = worst(c, path_cost(topology, rank_of(i), up));
      for (const LinkId id : topology.route(up, rank_of(i))) uses[id] += 1;
      if (used_trees == 2) {
        for (const LinkId id : topology.route(rank_of(i), up)) uses[id] += 1;
      }
    }
  }
  double busiest = 1;
  for (const auto& entry : uses) busiest = std::max(busiest, entry.second);
  const double bytes = used_trees == 2 ? s / 2.0 : s;
  const double k = chunks(bytes, chunk);
  const double piece = bytes / k;
  const double stages = used_trees == 2 ? 2.0 * height : height;
  prediction.cost = c;
  // A pipeline of `stages` hops through which k chunks flow one chunk time apart, unless a link shared by m
  // tree edges is the bottleneck: it must pass m k chunks, the fill and drain of the other hops hidden but their
  // latency not (Sanders, Speck, Traeff 2009 for pipelined trees; the max with the bottleneck is ours).
  const double chunk_s = c.overhead_s + piece * c.beta_s_per_byte;
  const double pipeline_s = stages * (c.alpha_s() + piece * c.beta_s_per_byte) + (k - 1.0) * chunk_s;
  const double bottleneck_s = busiest * k * chunk_s + stages * c.latency_s;
  prediction.time_s = std::max(pipeline_s, bottleneck_s) + (used_trees == 2 ? height * 2.0 * piece * gamma : 0.0);
  prediction.formula = used_trees == 2 ? "max(2h(a + c b) + (k-1)(o + c b), m k (o + c b) + 2h L) + 2h c g"
                                       : "max(h(a + c b) + (k-1)(o + c b), m k (o + c b) + h L)";
  return prediction;
}

// Rings per level of a multi-dimensional cluster, slices pipelined through the levels.
Prediction Problem::hierarchical() const {
  Prediction prediction;
  const auto& levels = request.levels;
  const std::size_t last = levels.size() - 1;
  double total = 0;
  double buffer = s;
  PathCost slowest;
  const auto level_cost = [&](std::size_t level) {
    // The groups of a level, as in the schedule.
    std::uint64_t stride = 1;
    for (std::size_t l = 0; l < level; ++l) stride *= levels[l];
    PathCost c;
    for (std::size_t base = 0; base < p_count; ++base) {
      if ((base / stride) % levels[level] != 0) continue;
      std::vector<std::size_t> group;
      for (std::uint64_t m = 0; m < levels[level]; ++m) group.push_back(static_cast<std::size_t>(base + m * stride));
      c = worst(c, ring_cost(topology, ranks, group));
    }
    return c;
  };
  // Per slice, the time each level's links are busy (its reduce-scatter and all-gather, or its all-reduce).
  const double slices = static_cast<double>(hierarchical_slices(request));
  std::vector<double> level_s(levels.size(), 0.0);
  buffer = s / slices;
  if (request.op == CollectiveOp::allgather) {
    buffer = s / slices / p;
    for (std::size_t l = last + 1; l-- > 0;) {
      buffer *= static_cast<double>(levels[l]);
      const auto c = level_cost(l);
      slowest = worst(slowest, c);
      level_s[l] = ring_time(CollectiveOp::allgather, static_cast<double>(levels[l]), buffer, c, gamma);
    }
  } else {
    const std::size_t scatter_levels = request.op == CollectiveOp::allreduce ? last : last + 1;
    for (std::size_t l = 0; l < scatter_levels; ++l) {
      const auto c = level_cost(l);
      slowest = worst(slowest, c);
      const double q = static_cast<double>(levels[l]);
      // Reduce-scatter now, all-gather of the same buffer on the way back.
      level_s[l] = ring_time(CollectiveOp::reducescatter, q, buffer, c, gamma);
      if (request.op == CollectiveOp::allreduce) level_s[l] += ring_time(CollectiveOp::allgather, q, buffer, c, gamma);
      buffer /= q;
    }
    if (request.op == CollectiveOp::allreduce) {
      const auto c = level_cost(last);
      slowest = worst(slowest, c);
      level_s[last] = ring_time(CollectiveOp::allreduce, static_cast<double>(levels[last]), buffer, c, gamma);
    }
  }
  // Slices flow through the levels like a pipeline: one slice's sum, then one slowest level per further slice.
  for (const double t : level_s) total += t;
  prediction.cost = slowest;
  prediction.time_s = total + (slices - 1.0) * *std::max_element(level_s.begin(), level_s.end());
  prediction.formula = "ring phases per level of one slice of S/m, summed, + (m-1) x the slowest level";
  return prediction;
}

// In-network reduction and multicast at a switch: every rank sends its shard up and receives the result down.
Prediction Problem::in_switch() const {
  Prediction prediction;
  const auto up = path_cost(topology, ranks[0], *request.switch_node);
  const auto down = path_cost(topology, *request.switch_node, ranks[0]);
  const double b = std::max(up.beta_s_per_byte, down.beta_s_per_byte);
  const bool broadcast = request.op == CollectiveOp::broadcast;
  const double shard = broadcast ? s : s / p;
  const double k = chunks(shard, chunk);
  const double piece = shard / k;
  // The busiest link direction (see build_in_switch): allreduce S + S/p each way; reducescatter S up;
  // allgather S - S/p down; broadcast S. Latency: the owner's round trip to the switch, then the multicast.
  const double carried = request.op == CollectiveOp::allreduce       ? s + s / p
                         : request.op == CollectiveOp::reducescatter ? s
                         : request.op == CollectiveOp::allgather     ? s - s / p
                                                                     : s;
  const double trips = request.op == CollectiveOp::allreduce ? 2.0 : 1.0;
  const double messages = broadcast ? k : p * k;
  prediction.cost = worst(up, down);
  prediction.time_s = trips * (up.latency_s + down.latency_s) + carried * b + piece * b + messages * up.overhead_s;
  prediction.formula = "trips x 2L + (bytes on the busiest link + c) b + messages o";
  return prediction;
}

}  // namespace

Prediction predict(const CollectiveRequest& request, const Topology& topology, Seconds gamma) {
  const std::size_t p_count = request.ranks.size();
  const double p = static_cast<double>(p_count);
  const Problem problem{request,
                        topology,
                        gamma,
                        request.ranks,
                        p_count,
                        p,
                        static_cast<double>(request.bytes),
                        static_cast<double>(request.chunk_bytes),
                        (p - 1.0) / p,
                        std::ceil(std::log2(p))};
  switch (request.algorithm) {
    case Algorithm::ring: return problem.ring();
    case Algorithm::halving_doubling: return problem.halving_doubling();
    case Algorithm::direct: return problem.direct();
    case Algorithm::tree: return problem.tree();
    case Algorithm::hierarchical: return problem.hierarchical();
    case Algorithm::in_switch: return problem.in_switch();
  }
  return Prediction{};
}

}  // namespace roofsim::net
