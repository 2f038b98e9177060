#include "models/net/alpha_beta.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <vector>

namespace roofsim::net {

PathCost path_cost(const Topology& topology, NodeId from, NodeId to) {
  PathCost cost;
  for (const LinkId id : topology.route(from, to)) {
    const auto& params = topology.link(id).params;
    cost.latency_s += params.latency_s;
    cost.overhead_s += params.overhead_s;
    cost.beta_s_per_byte = std::max(cost.beta_s_per_byte, 1.0 / params.payload_bandwidth_bytes_per_s());
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

PathCost ring_cost(const Topology& topology, const std::vector<NodeId>& ranks,
                   const std::vector<std::size_t>& members) {
  PathCost cost;
  for (std::size_t i = 0; i < members.size(); ++i) {
    cost = worst(cost, path_cost(topology, ranks[members[i]], ranks[members[(i + 1) % members.size()]]));
  }
  return cost;
}

// A lone message of `wire` bytes crossing idle links in packets of `packet` bytes, from its start to its arrival (the
// network core's packet train): every link's overhead and latency, the first packet's service at every link, the
// rest of the bytes at the slowest link.
Seconds message_s(const Topology& topology, const std::vector<LinkId>& route, double wire, double packet) {
  const double first = std::min(wire, packet);
  Seconds time = 0;
  double slowest = 0;
  for (const LinkId id : route) {
    const auto& params = topology.link(id).params;
    time += params.overhead_s + params.latency_s + first / params.payload_bandwidth_bytes_per_s();
    slowest = std::max(slowest, 1.0 / params.payload_bandwidth_bytes_per_s());
  }
  return time + (wire - first) * slowest;
}

// A rank's messages of `wire` bytes to a switch that reduces or multicasts and back: each way's path cost, a lone
// message's time, and the service time each further message adds on that way's slowest link.
struct SwitchRoundTrip {
  PathCost up, down;
  Seconds up_s = 0, down_s = 0;
  Seconds up_service_s = 0, down_service_s = 0;
};

SwitchRoundTrip switch_round_trip(const Topology& topology, NodeId rank, NodeId sw, double wire, double packet) {
  SwitchRoundTrip trip;
  trip.up = path_cost(topology, rank, sw);
  trip.down = path_cost(topology, sw, rank);
  trip.up_s = message_s(topology, topology.route(rank, sw), wire, packet);
  trip.down_s = message_s(topology, topology.route(sw, rank), wire, packet);
  trip.up_service_s = trip.up.overhead_s + wire * trip.up.beta_s_per_byte;
  trip.down_service_s = trip.down.overhead_s + wire * trip.down.beta_s_per_byte;
  return trip;
}

// The bytes a payload puts on the wire (ProtocolCost::wire_bytes for a fractional payload).
double wire(const ProtocolCost& protocol, double payload) {
  return std::ceil(payload / static_cast<double>(protocol.line_payload_bytes)) *
         static_cast<double>(protocol.line_bytes);
}

// The chunks of `piece` bytes a connection's receive buffer of `window` bytes holds at once: at least one (a larger
// message goes alone); unlimited (a huge count) when the window is 0.
double in_flight_chunks(Bytes window, double piece) {
  if (window == 0) return 1e18;
  return std::max(1.0, std::floor(static_cast<double>(window) / std::max(1.0, piece)));
}

// A chain of hops that k chunks take one after another (a pipelined broadcast): chunk m leaves hop h once it has
// arrived over hop h-1, the hop's link has passed chunk m-1 (the spacing u_h), and the connection's chunk m-W has
// arrived (its receive buffer holds W chunks). d_h: one chunk's time over hop h (message and protocol step). Returns
// the last chunk's arrival at the end of the chain (max-plus, as the packet trains).
Seconds pipelined_chain_s(const std::vector<Seconds>& d, const std::vector<Seconds>& u, std::size_t k,
                          std::size_t window, Seconds first_s = 0) {
  std::vector<Seconds> arrived(k, first_s), leaves(k, 0.0);
  for (std::size_t h = 0; h < d.size(); ++h) {
    for (std::size_t m = 0; m < k; ++m) {
      Seconds at = arrived[m];
      if (m > 0) at = std::max(at, leaves[m - 1] + u[h]);
      if (m >= window) at = std::max(at, leaves[m - window] + d[h]);
      leaves[m] = at;
    }
    for (std::size_t m = 0; m < k; ++m) arrived[m] = leaves[m] + d[h];
  }
  return k == 0 ? 0.0 : arrived[k - 1];
}

// What every algorithm's formula reads of a request: p ranks, a buffer of s bytes in chunks of `chunk` bytes.
struct Problem {
  [[nodiscard]] Prediction ring() const;
  [[nodiscard]] Prediction ring_broadcast() const;
  [[nodiscard]] Prediction halving_doubling() const;
  [[nodiscard]] Prediction direct() const;
  [[nodiscard]] Prediction tree() const;
  [[nodiscard]] Prediction hierarchical() const;
  [[nodiscard]] Prediction in_switch() const;
  [[nodiscard]] Prediction collnet() const;

  const CollectiveRequest& request;
  const Topology& topology;
  const NetworkOptions& options;
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
  if (request.op == CollectiveOp::broadcast) return ring_broadcast();
  // Per channel: q shards of s/C bytes in k chunks of c; reduce steps and gather steps (Patarasuk and Yuan 2009).
  const auto orders = request.channels.empty() ? std::vector<std::vector<NodeId>>{ranks} : request.channels;
  const double channels = static_cast<double>(orders.size());
  const double reduce_steps = request.op == CollectiveOp::allgather ? 0.0 : p - 1.0;
  const double gather_steps = request.op == CollectiveOp::reducescatter ? 0.0 : p - 1.0;
  const double steps = reduce_steps + gather_steps;
  const double shard = s / channels / p;
  const double k = chunks(shard, chunk);
  const double piece = shard / k;
  const double w = wire(options.protocol, piece);
  const double packet = static_cast<double>(options.packet_bytes);
  // D: a chunk's step from its sender's readiness to its arrival (message, protocol step latency); the slowest hop.
  // Busy: each link direction's work, every channel's messages through it.
  std::map<LinkId, double> busy;
  Seconds step_s = 0;
  std::vector<std::vector<Seconds>> hop_s(orders.size());  // per channel: D of the hop from its rank i to rank i+1
  for (std::size_t o = 0; o < orders.size(); ++o) {
    const auto& order = orders[o];
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& route = topology.route(order[i], order[(i + 1) % order.size()]);
      hop_s[o].push_back(message_s(topology, route, w, packet) + protocol_step_s(topology, options.protocol, route));
      step_s = std::max(step_s, hop_s[o].back());
      for (const LinkId id : route) {
        const auto& params = topology.link(id).params;
        busy[id] += steps * k * (params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
      }
    }
  }
  Seconds busiest_s = 0;
  Seconds service_s = 0;  // one message's time on the busiest link
  for (const auto& [id, time_s] : busy) {
    if (time_s > busiest_s) {
      busiest_s = time_s;
      const auto& params = topology.link(id).params;
      service_s = params.overhead_s + w / params.payload_bandwidth_bytes_per_s();
    }
  }
  const double reduce_s = piece * gamma;
  // The pipeline (max-plus, as the packet trains): chunk j of step t leaves when chunk j of step t-1 has arrived and
  // been reduced (D after it left) and the sender's link has passed its k chunks of step t-1 (k u, u the spacing of
  // one channel's chunks on the busiest link). Chunk 0 therefore moves on every max(D, k u), and the last step
  // adds the k-1 spacings of its chunks and its own D: link-bound, this is the busiest link's work plus one drain;
  // latency-bound, the sum of the steps plus the spacings. The reducer: each device reduces every channel's chunks of
  // the reduce steps one after another. Channels that share the busiest link queue behind one another once, at the
  // first step (u - one message's service); after that they keep that offset.
  // The chunks' chain of steps goes round the ring, one hop per step: its D is the hops' own in ring order (on a
  // two-level ring a few hops cross a NIC, the others stay on NVLink), and the last chain to finish is the one whose
  // run of hops is slowest.
  const double spacing_s = busiest_s / (steps * k);
  const double reduce_step_s = step_s + reduce_s;
  const double last_s = gather_steps > 0 ? step_s : reduce_step_s;
  const auto step_count = static_cast<std::size_t>(steps);
  const auto reduce_count = static_cast<std::size_t>(reduce_steps);
  double pipeline_s = 0;
  // The reducer: a device's first chunk arrives (one hop), it reduces every channel's chunks of the reduce steps one
  // after another, and the gather steps follow round the ring.
  const double reducer_work_s = channels * reduce_steps * k * reduce_s;
  double reducer_s = 0;
  for (std::size_t o = 0; o < orders.size(); ++o) {
    const auto& hops = hop_s[o];
    // Prefix sums of each hop's step that is not the last: max(D + reduction, k u_h) on reduce steps, max(D, k u_h)
    // on gather steps, u_h the spacing of chunks on the busiest link of the hop's own route (a chunk waits for the
    // link it takes, not for the slowest link of the ring); a run of them round the ring is whole turns plus a piece.
    const std::size_t n = hops.size();
    std::vector<double> hop_period_s(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (const LinkId id : topology.route(orders[o][i], orders[o][(i + 1) % n])) {
        hop_period_s[i] = std::max(hop_period_s[i], busy[id] / steps);
      }
    }
    std::vector<double> reduce_sum(n + 1, 0.0), gather_sum(n + 1, 0.0), hop_sum(n + 1, 0.0);
    for (std::size_t h = 0; h < n; ++h) {
      reduce_sum[h + 1] = reduce_sum[h] + std::max(hops[h] + reduce_s, hop_period_s[h]);
      gather_sum[h + 1] = gather_sum[h] + std::max(hops[h], hop_period_s[h]);
      hop_sum[h + 1] = hop_sum[h] + hops[h];
    }
    const auto run_s = [n](const std::vector<double>& sum, std::size_t first, std::size_t length) {
      const std::size_t from = first % n;
      const std::size_t rest = length % n;
      double total = static_cast<double>(length / n) * sum[n];
      total += from + rest <= n ? sum[from + rest] - sum[from] : sum[n] - sum[from] + sum[from + rest - n];
      return total;
    };
    for (std::size_t start = 0; start < n && step_count > 0; ++start) {
      const std::size_t last = step_count - 1;
      const std::size_t reduce_run = std::min(reduce_count, last);
      const double chain_s = run_s(reduce_sum, start, reduce_run) +
                             run_s(gather_sum, start + reduce_run, last - reduce_run) + hops[(start + last) % n] +
                             (last < reduce_count ? reduce_s : 0.0);
      pipeline_s = std::max(pipeline_s, chain_s);
      // (An all-gather reduces nothing: its chain above is its whole path.)
      if (reduce_count > 0) {
        reducer_s = std::max(
            reducer_s, hops[start] + reducer_work_s + run_s(hop_sum, start + reduce_count, step_count - reduce_count));
      }
    }
  }
  pipeline_s += (k - 1.0) * spacing_s + (spacing_s - service_s);
  const double link_s = busiest_s - service_s + last_s;
  // The send window: a connection's send n waits for its send n - W to be released (reduced at the receiver, else
  // arrived) when W chunks fill the receive buffer. Where that binds, every connection's sends are played in their
  // order: send n of hop h leaves after its send n-1 has passed its link (u_h), its send n-W has been released, and
  // its data has come from hop h-1 (that hop's send n-k, one step earlier, released).
  const double window_chunks = in_flight_chunks(request.send_window_bytes, std::ceil(piece));
  double window_s = 0;
  if (window_chunks < steps * k) {
    const auto sends = static_cast<std::size_t>(steps * k);
    const auto chunk_count_k = static_cast<std::size_t>(k);
    const auto window = static_cast<std::size_t>(window_chunks);
    for (std::size_t o = 0; o < orders.size(); ++o) {
      const auto& hops = hop_s[o];
      const std::size_t n = hops.size();
      std::vector<double> spacing(n, 0.0);
      for (std::size_t h = 0; h < n; ++h) {
        for (const LinkId id : topology.route(orders[o][h], orders[o][(h + 1) % n])) {
          spacing[h] = std::max(spacing[h], busy[id] / (steps * k));
        }
      }
      // start[h * sends + m]: when hop h's send m leaves.
      std::vector<double> start(n * sends, 0.0);
      const auto released = [&](std::size_t h, std::size_t m) {
        return start[h * sends + m] + hops[h] + (m / chunk_count_k < reduce_count ? reduce_s : 0.0);
      };
      for (std::size_t m = 0; m < sends; ++m) {
        for (std::size_t h = 0; h < n; ++h) {
          double at = 0;
          if (m > 0) at = start[h * sends + m - 1] + spacing[h];
          if (m >= window) at = std::max(at, released(h, m - window));
          if (m >= chunk_count_k) at = std::max(at, released((h + n - 1) % n, m - chunk_count_k));
          start[h * sends + m] = at;
        }
      }
      for (std::size_t h = 0; h < n; ++h) window_s = std::max(window_s, released(h, sends - 1));
    }
  }
  prediction.time_s = options.protocol.launch_s + std::max({pipeline_s, link_s, reducer_s, window_s});
  prediction.formula =
      "launch + max(sum over steps of max(D, k u) + (k-1) u + D, reducer, sends in window order); D: step, u: "
      "spacing";
  return prediction;
}

// A pipelined broadcast round each channel's ring from the root (build_ring_steps): every hop passes the channel's
// k chunks on as they arrive, within the connection's send window; channels that share a link interleave on it.
Prediction Problem::ring_broadcast() const {
  Prediction prediction;
  const auto orders = request.channels.empty() ? std::vector<std::vector<NodeId>>{ranks} : request.channels;
  const NodeId root = ranks[request.root];
  const double bytes = s / static_cast<double>(orders.size());
  const double k = chunks(bytes, chunk);
  const double piece = bytes / k;
  const double w = wire(options.protocol, piece);
  const double packet = static_cast<double>(options.packet_bytes);
  const auto hop_route = [&](const std::vector<NodeId>& order, std::size_t h) -> const std::vector<LinkId>& {
    const auto at = static_cast<std::size_t>(std::find(order.begin(), order.end(), root) - order.begin());
    return topology.route(order[(at + h) % order.size()], order[(at + h + 1) % order.size()]);
  };
  std::map<LinkId, double> busy;  // per link direction: every channel's chunks through it
  for (const auto& order : orders) {
    for (std::size_t h = 0; h + 1 < order.size(); ++h) {
      for (const LinkId id : hop_route(order, h)) {
        const auto& params = topology.link(id).params;
        busy[id] += k * (params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
      }
    }
  }
  const auto window =
      static_cast<std::size_t>(std::min(k, in_flight_chunks(request.send_window_bytes, std::ceil(piece))));
  Seconds chain_s = 0;
  // Every channel's first sends leave the root at once and queue on its first link in channel order, each channel's
  // first window of chunks behind the earlier channels' (its later ones wait for their window).
  Seconds first_s = 0;
  for (const auto& order : orders) {
    std::vector<Seconds> d, u;
    for (std::size_t h = 0; h + 1 < order.size(); ++h) {
      const auto& route = hop_route(order, h);
      d.push_back(message_s(topology, route, w, packet) + protocol_step_s(topology, options.protocol, route));
      Seconds spacing = 0;
      for (const LinkId id : route) spacing = std::max(spacing, busy[id] / k);
      u.push_back(spacing);
    }
    chain_s = std::max(chain_s, pipelined_chain_s(d, u, static_cast<std::size_t>(k), window, first_s));
    Seconds own_s = 0;
    for (const LinkId id : hop_route(order, 0)) {
      const auto& params = topology.link(id).params;
      own_s = std::max(own_s, params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
    }
    first_s += static_cast<double>(window) * own_s;
  }
  std::vector<std::size_t> all(ranks.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  prediction.cost = ring_cost(topology, ranks, all);
  prediction.time_s = options.protocol.launch_s + chain_s;
  prediction.formula =
      "launch + chunks through the chain of hops (each after its arrival, the link's previous chunk "
      "and the window)";
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
  const double packet = static_cast<double>(options.packet_bytes);
  // One step: every rank sends `bytes` to its partner in chunks that all leave at once and follow one another on the
  // route (D, then u apart); the partner reduces each as it arrives, one after another: D + g + (k-1) max(u, g).
  // Every rank has one partner per step, so no link carries two ranks' chunks.
  const auto pair_step_s = [&](NodeId from, NodeId to, double bytes, bool reduce) {
    const double k = chunks(bytes, chunk);
    const double piece = bytes / k;
    const double w = wire(options.protocol, piece);
    const auto& route = topology.route(from, to);
    Seconds service_s = 0;
    for (const LinkId id : route) {
      const auto& params = topology.link(id).params;
      service_s = std::max(service_s, params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
    }
    const Seconds d_s = message_s(topology, route, w, packet) + protocol_step_s(topology, options.protocol, route);
    const Seconds g_s = reduce ? piece * gamma : 0.0;
    return d_s + g_s + (k - 1.0) * std::max(service_s, g_s);
  };
  const auto step_s = [&](double bytes, std::size_t distance, bool reduce) {
    Seconds slowest_s = 0;
    for (std::size_t i = 0; i < p_count; ++i) {
      if ((i ^ distance) < p_count) {
        slowest_s = std::max(slowest_s, pair_step_s(ranks[i], ranks[i ^ distance], bytes, reduce));
      }
    }
    return slowest_s;
  };
  const auto log_steps = static_cast<std::size_t>(log_p);
  Seconds time_s = 0;
  if (request.op == CollectiveOp::broadcast) {
    // The binomial tree: a rank sends once it has the whole buffer; a sender's messages of later steps queue behind
    // its earlier ones on its first link (the root's all leave at once).
    std::vector<Seconds> has_s(p_count, 0.0), free_s(p_count, 0.0);
    const double k = chunks(s, chunk);
    const double w = wire(options.protocol, s / k);
    for (std::size_t step = 0; step < log_steps; ++step) {
      const std::size_t span = std::size_t{1} << step;
      for (std::size_t v = 0; v < span && v + span < p_count; ++v) {
        const auto from = ranks[(request.root + v) % p_count];
        const auto to = ranks[(request.root + v + span) % p_count];
        const auto& route = topology.route(from, to);
        Seconds service_s = 0;
        for (const LinkId id : route) {
          const auto& params = topology.link(id).params;
          service_s = std::max(service_s, params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
        }
        const Seconds start_s = std::max(has_s[v], free_s[v]);
        free_s[v] = start_s + k * service_s;
        has_s[v + span] = start_s + pair_step_s(from, to, s, false);
        time_s = std::max(time_s, has_s[v + span]);
      }
    }
    prediction.formula = "launch + binomial tree: per send max(has, sender's link free) + D + (k-1) u";
  } else {
    if (request.op != CollectiveOp::allgather) {
      for (std::size_t step = 0; step < log_steps; ++step) {
        const std::size_t distance = p_count >> (step + 1);
        time_s += step_s(s * static_cast<double>(distance) / p, distance, true);
      }
    }
    if (request.op != CollectiveOp::reducescatter) {
      for (std::size_t step = 0; step < log_steps; ++step) {
        const std::size_t distance = std::size_t{1} << step;
        time_s += step_s(s * static_cast<double>(distance) / p, distance, false);
      }
    }
    prediction.formula = "launch + sum over log2(p) steps of (D + g + (k-1) max(u, g)); D: chunk's step, u: spacing";
  }
  prediction.time_s = options.protocol.launch_s + time_s;
  return prediction;
}

// Every rank sends to every other at once: bounded by the busiest link direction.
Prediction Problem::direct() const {
  Prediction prediction;
  const double packet = static_cast<double>(options.packet_bytes);
  // One exchange: every message's chunks leave at once, queue on every link of their route in turn and arrive D after
  // they leave (message and protocol step); the last arrives once the busiest link has passed its n chunks (D + (n-1)
  // u). A receiver reduces its chunks one after another as they come: its c chunks of each of its n_d arrival slots.
  struct Message {
    NodeId from, to;
    double bytes;
  };
  const auto exchange_s = [&](const std::vector<Message>& messages, bool reduce) {
    std::map<LinkId, double> count, service;
    std::map<LinkId, Seconds> slowest_d_s;  // per link direction: the longest D of the messages through it
    std::map<NodeId, double> received;
    std::map<NodeId, std::map<LinkId, double>> into;
    Seconds d_s = 0, g_s = 0;
    for (const auto& message : messages) {
      const double k = chunks(message.bytes, chunk);
      const double piece = message.bytes / k;
      const double w = wire(options.protocol, piece);
      const auto& route = topology.route(message.from, message.to);
      prediction.cost = worst(prediction.cost, path_cost(topology, message.from, message.to));
      const Seconds message_d_s =
          message_s(topology, route, w, packet) + protocol_step_s(topology, options.protocol, route);
      d_s = std::max(d_s, message_d_s);
      g_s = std::max(g_s, piece * gamma);
      for (const LinkId id : route) {
        const auto& params = topology.link(id).params;
        count[id] += k;
        slowest_d_s[id] = std::max(slowest_d_s[id], message_d_s);
        service[id] = std::max(service[id], params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
      }
      received[message.to] += k;
      if (!route.empty()) into[message.to][route.back()] += k;
    }
    Seconds last_s = d_s;  // the last arrival: per link, its chunks' queue and then the longest way through it
    for (const auto& [id, n] : count) {
      last_s = std::max(last_s, (n - 1.0) * service[id] + slowest_d_s[id]);
    }
    Seconds time_s = last_s;
    if (reduce) {
      Seconds reduced_s = 0;
      for (const auto& [node, n] : received) {
        double slots = 1;
        for (const auto& entry : into[node]) slots = std::max(slots, entry.second);
        reduced_s = std::max({reduced_s, d_s + n * g_s, last_s + n / slots * g_s});
      }
      time_s = reduced_s;
    }
    return time_s;
  };
  const bool reduces = request.op == CollectiveOp::allreduce || request.op == CollectiveOp::reducescatter;
  std::vector<Message> messages;
  for (std::size_t i = 0; i < p_count; ++i) {
    for (std::size_t d = 0; d < p_count; ++d) {
      if (d == i || (request.op == CollectiveOp::broadcast && i != request.root)) continue;
      messages.push_back({ranks[i], ranks[d], request.op == CollectiveOp::broadcast ? s : s / p});
    }
  }
  Seconds time_s = exchange_s(messages, reduces);
  if (request.op == CollectiveOp::allreduce) time_s += exchange_s(messages, false);
  prediction.time_s = options.protocol.launch_s + time_s;
  prediction.formula = request.op == CollectiveOp::allreduce ? "launch + 2 (D + (n-1) u), reductions as chunks arrive"
                       : reduces                             ? "launch + D + (n-1) u, reductions as chunks arrive"
                                                             : "launch + D + (n-1) u; n: chunks on the busiest link";
  return prediction;
}

// Both trees of an allreduce played chunk by chunk as a list schedule of the 2 x 2(p-1) x k messages: a message
// crosses the FIFO links of its route as a packet train (PacketTrain's closed form), so at an interior rank the one
// port to the switch passes a chunk's message down behind the later chunks' messages up that were ready before it.
// A message is dispatched twice: when it is ready it queues on its sender's port (the first link of its route, which
// serves the sender's messages in the order they are ready); when that port starts sending it, it takes the rest of
// its route. The rest of a route is thus reserved in the order the messages leave their senders, which on a switch
// whose ports are alike is the order they reach its port to the receiver: a parent whose port alternates between its
// two children delivers each child one chunk per two services, and a child of two parents (one per tree) receives
// their streams interleaved, not one parent's chunks ahead of the other's because they were ready first. A reduction
// waits for its receiver's reducer; a connection's chunk j waits for the release of its chunk j-W (the send window).
// Returns the last chunk's arrival, from 0.
Seconds tree_allreduce_schedule_s(const Topology& topology, const NetworkOptions& options,
                                  const std::vector<BinaryTree>& trees, const std::vector<NodeId>& ranks, Bytes bytes,
                                  Bytes chunk_bytes, Bytes window_bytes) {
  const std::size_t p = ranks.size();
  std::vector<TimeFs> link_busy_fs(topology.link_count(), 0);
  std::map<NodeId, TimeFs> reducer_busy_fs;
  // send_*: the message is ready at its sender; leave_*: its sender's port starts sending it.
  enum class Kind { send_up, send_down, leave_up, leave_down, reduce };
  struct Event {
    TimeFs time_fs;
    std::uint64_t sequence;
    Kind kind;
    std::size_t tree, chunk;
    std::size_t rank;       // send_up: the sender; send_down: the child; reduce: the child whose message is reduced
    std::size_t train = 0;  // leave_*: the message's packet train past its sender's port
    bool operator>(const Event& other) const {
      return time_fs != other.time_fs ? time_fs > other.time_fs : sequence > other.sequence;
    }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::uint64_t sequence = 0;
  struct Waiting {
    std::size_t count = 0;
    TimeFs ready_fs = 0;
  };
  // Per tree, chunk and rank: what its send up (to its parent) and down (from its parent) still waits for.
  std::vector<std::vector<std::vector<Waiting>>> up(2), down(2);
  std::vector<std::vector<std::size_t>> root_pending(2);
  std::vector<std::size_t> k(2), window(2), root(2, 0);
  std::vector<std::vector<Bytes>> part(2);
  for (std::size_t t = 0; t < 2; ++t) {
    const auto& tree = trees[t];
    const Bytes tree_bytes = share(bytes, 2, t);
    k[t] = tree_bytes <= chunk_bytes ? 1 : static_cast<std::size_t>((tree_bytes + chunk_bytes - 1) / chunk_bytes);
    for (std::size_t j = 0; j < k[t]; ++j) part[t].push_back(share(tree_bytes, k[t], j));
    window[t] =
        window_bytes == 0 ? k[t] : std::max<std::size_t>(1, static_cast<std::size_t>(window_bytes / part[t][0]));
    up[t].assign(k[t], std::vector<Waiting>(p));
    down[t].assign(k[t], std::vector<Waiting>(p));
    for (std::size_t i = 0; i < p; ++i) {
      if (tree.parent[i] < 0) root[t] = i;
    }
    root_pending[t].assign(k[t], tree.children[root[t]].size());
    for (std::size_t j = 0; j < k[t]; ++j) {
      for (std::size_t i = 0; i < p; ++i) {
        const std::size_t windowed = j >= window[t] ? 1 : 0;
        up[t][j][i].count = tree.children[i].size() + windowed;
        down[t][j][i].count = 1 + windowed;
      }
    }
  }
  const auto satisfy = [&](std::vector<std::vector<std::vector<Waiting>>>& waits, Kind kind, std::size_t t,
                           std::size_t j, std::size_t i, TimeFs at_fs) {
    auto& wait = waits[t][j][i];
    wait.ready_fs = std::max(wait.ready_fs, at_fs);
    if (--wait.count == 0) events.push(Event{wait.ready_fs, sequence++, kind, t, j, i});
  };
  // The operations without dependencies start in the order the schedule lists them: per tree and chunk, deepest first.
  for (std::size_t t = 0; t < 2; ++t) {
    std::vector<std::size_t> depth(p, 0);
    for (std::size_t i = 0; i < p; ++i) {
      for (int at = static_cast<int>(i); trees[t].parent[static_cast<std::size_t>(at)] >= 0;
           at = trees[t].parent[static_cast<std::size_t>(at)]) {
        ++depth[i];
      }
    }
    std::vector<std::size_t> deepest_first(p);
    for (std::size_t i = 0; i < p; ++i) deepest_first[i] = i;
    std::stable_sort(deepest_first.begin(), deepest_first.end(),
                     [&](std::size_t a, std::size_t b) { return depth[a] > depth[b]; });
    for (std::size_t j = 0; j < k[t]; ++j) {
      for (const auto i : deepest_first) {
        if (trees[t].parent[i] >= 0 && up[t][j][i].count == 0)
          events.push(Event{0, sequence++, Kind::send_up, t, j, i});
      }
    }
  }
  // Trains past their sender's port, waiting to take the rest of their route.
  std::vector<PacketTrain> trains;
  std::vector<std::size_t> free_trains;
  const auto cross_fs = [&](PacketTrain& train, LinkId id) {
    const auto& params = topology.link(id).params;
    const TimeFs starts_fs = std::max(link_busy_fs[id], train.first_arrival_fs());
    train.cross(link_busy_fs[id], params.payload_bandwidth_bytes_per_s(), to_fs(params.overhead_s),
                to_fs(params.latency_s));
    return starts_fs;
  };
  // Queues a ready message on its sender's port; the event that dispatches it when the port starts sending it.
  const auto send = [&](Kind leave, std::size_t t, std::size_t j, std::size_t rank, std::size_t from, std::size_t to,
                        TimeFs at_fs) {
    const auto& route = topology.route(ranks[from], ranks[to]);
    PacketTrain train(options.protocol.wire_bytes(part[t][j]), options.packet_bytes, at_fs);
    const TimeFs leaves_fs = route.empty() ? at_fs : cross_fs(train, route.front());
    std::size_t slot = trains.size();
    if (free_trains.empty()) {
      trains.push_back(train);
    } else {
      slot = free_trains.back();
      free_trains.pop_back();
      trains[slot] = train;
    }
    events.push(Event{leaves_fs, sequence++, leave, t, j, rank, slot});
  };
  // The rest of the message's route; its arrival at the receiver.
  const auto arrive_fs = [&](std::size_t from, std::size_t to, std::size_t slot) {
    const auto& route = topology.route(ranks[from], ranks[to]);
    PacketTrain& train = trains[slot];
    for (std::size_t h = 1; h < route.size(); ++h) (void)cross_fs(train, route[h]);
    free_trains.push_back(slot);
    return train.last_arrival_fs() + to_fs(protocol_step_s(topology, options.protocol, route));
  };
  TimeFs finish_fs = 0;
  while (!events.empty()) {
    const Event event = events.top();
    events.pop();
    const auto t = event.tree;
    const auto j = event.chunk;
    const auto& tree = trees[t];
    switch (event.kind) {
      case Kind::send_up: {
        send(Kind::leave_up, t, j, event.rank, event.rank, static_cast<std::size_t>(tree.parent[event.rank]),
             event.time_fs);
        break;
      }
      case Kind::leave_up: {
        const auto parent = static_cast<std::size_t>(tree.parent[event.rank]);
        events.push(Event{arrive_fs(event.rank, parent, event.train), sequence++, Kind::reduce, t, j, event.rank});
        break;
      }
      case Kind::reduce: {
        const auto parent = static_cast<std::size_t>(tree.parent[event.rank]);
        auto& busy = reducer_busy_fs[ranks[parent]];
        busy = std::max(busy, event.time_fs) + to_fs(options.reduction.time_s(part[t][j]));
        if (j + window[t] < k[t]) satisfy(up, Kind::send_up, t, j + window[t], event.rank, busy);
        if (parent != root[t]) {
          satisfy(up, Kind::send_up, t, j, parent, busy);
        } else if (--root_pending[t][j] == 0) {
          for (const int child : tree.children[parent]) {
            satisfy(down, Kind::send_down, t, j, static_cast<std::size_t>(child), busy);
          }
        }
        break;
      }
      case Kind::send_down: {
        send(Kind::leave_down, t, j, event.rank, static_cast<std::size_t>(tree.parent[event.rank]), event.rank,
             event.time_fs);
        break;
      }
      case Kind::leave_down: {
        const auto parent = static_cast<std::size_t>(tree.parent[event.rank]);
        const TimeFs arrived_fs = arrive_fs(parent, event.rank, event.train);
        finish_fs = std::max(finish_fs, arrived_fs);
        if (j + window[t] < k[t]) satisfy(down, Kind::send_down, t, j + window[t], event.rank, arrived_fs);
        for (const int child : tree.children[event.rank]) {
          satisfy(down, Kind::send_down, t, j, static_cast<std::size_t>(child), arrived_fs);
        }
        break;
      }
    }
  }
  return to_seconds(finish_fs);
}

// Pipelined double binary trees (two for allreduce, each carrying half the buffer, played by their schedule; a
// broadcast down one, in closed form).
Prediction Problem::tree() const {
  Prediction prediction;
  const auto trees = double_binary_tree(p_count);
  const std::size_t used_trees = request.op == CollectiveOp::allreduce ? 2 : 1;
  const auto rank_of = [&](std::size_t position) {
    return request.op == CollectiveOp::allreduce ? ranks[position] : ranks[(position + request.root) % p_count];
  };
  PathCost c;
  std::map<LinkId, double> uses;  // tree edges down per link direction
  for (std::size_t t = 0; t < used_trees; ++t) {
    for (std::size_t i = 0; i < p_count; ++i) {
      const int parent = trees[t].parent[i];
      if (parent < 0) continue;
      const auto up = rank_of(static_cast<std::size_t>(parent));
      c = worst(c, path_cost(topology, rank_of(i), up));
      for (const LinkId id : topology.route(up, rank_of(i))) uses[id] += 1;
    }
  }
  prediction.cost = c;
  if (used_trees == 2) {
    // The schedule is a max-plus system in the chunk index, periodic once the pipeline's transient (its depth and
    // the send window's chunks) has passed (Baccelli, Cohen, Olsder and Quadrat 1992, ch. 3): past that many chunks
    // each further chunk adds the same period, so a long buffer takes the schedule of two shorter ones of the same
    // chunks, extended along their difference, and the prediction costs O(p) whatever the buffer.
    const Bytes tree_bytes = share(request.bytes, 2, 0);
    const std::size_t k_count =
        tree_bytes <= request.chunk_bytes
            ? 1
            : static_cast<std::size_t>((tree_bytes + request.chunk_bytes - 1) / request.chunk_bytes);
    const Bytes piece_bytes = (tree_bytes + k_count - 1) / k_count;
    const std::size_t window_count =
        request.send_window_bytes == 0 ? 1 : std::max<Bytes>(1, request.send_window_bytes / piece_bytes);
    const std::size_t transient = 4 * (p_count + window_count);
    Seconds schedule_s = 0;
    if (k_count <= 2 * transient) {
      schedule_s = tree_allreduce_schedule_s(topology, options, trees, ranks, request.bytes, request.chunk_bytes,
                                             request.send_window_bytes);
    } else {
      const auto chunks_s = [&](std::size_t count) {
        return tree_allreduce_schedule_s(topology, options, trees, ranks, 2 * count * piece_bytes, piece_bytes,
                                         request.send_window_bytes);
      };
      const Seconds shorter_s = chunks_s(transient);
      const Seconds longer_s = chunks_s(2 * transient);
      schedule_s = longer_s + static_cast<double>(k_count - 2 * transient) * (longer_s - shorter_s) /
                                  static_cast<double>(transient);
    }
    prediction.time_s = options.protocol.launch_s + schedule_s;
    prediction.formula =
        "launch + both trees' chunks, each on its sender's port when ready and on the rest of its route when sent, "
        "every "
        "link FIFO (list schedule)";
    return prediction;
  }
  // A broadcast: one tree, its chunks only go down.
  const double k = chunks(s, chunk);
  const double piece = s / k;
  const double wire_piece = wire(options.protocol, piece);
  const double packet = static_cast<double>(options.packet_bytes);
  // The first chunk's way down the tree, as the schedule runs it: a parent sends to its children one after another
  // through its first link. A message's own time is D (message and protocol step), its place in a queue one
  // service s of the shared link after the one before it.
  Seconds first_chunk_s = 0;
  // Per tree and rank: when its first chunk is ready to go down (received from above).
  std::vector<std::vector<Seconds>> down_ready_s(used_trees);
  std::vector<Seconds> tree_first_chunk_s(used_trees, 0.0);
  // Per tree and rank: when its first chunk arrives from its parent, queues included.
  std::vector<std::vector<Seconds>> down_arrival_s(used_trees, std::vector<Seconds>(p_count, 0.0));
  for (std::size_t t = 0; t < used_trees; ++t) {
    const auto& tree = trees[t];
    const auto message_time_s = [&](std::size_t from, std::size_t to) {
      const auto& route = topology.route(rank_of(from), rank_of(to));
      return message_s(topology, route, wire_piece, packet) + protocol_step_s(topology, options.protocol, route);
    };
    const auto service_s = [&](LinkId id) {
      const auto& params = topology.link(id).params;
      return params.overhead_s + wire_piece / params.payload_bandwidth_bytes_per_s();
    };
    std::vector<Seconds> ready(p_count, 0.0);
    std::size_t root = 0;
    for (std::size_t i = 0; i < p_count; ++i) {
      if (tree.parent[i] < 0) root = i;
    }
    // Down: breadth first from the root, each parent's messages one after another through its first link.
    std::vector<std::size_t> order{root};
    for (std::size_t n = 0; n < order.size(); ++n) {
      const auto parent = order[n];
      std::map<LinkId, Seconds> link_free_s;  // per link out of the parent: when its earlier messages have left
      for (const int kid : tree.children[parent]) {
        const auto child = static_cast<std::size_t>(kid);
        const auto& route = topology.route(rank_of(parent), rank_of(child));
        Seconds sent_s = ready[parent];
        if (!route.empty()) {
          const auto queued = link_free_s.find(route.front());
          if (queued != link_free_s.end()) sent_s = std::max(sent_s, queued->second);
          link_free_s[route.front()] = sent_s + service_s(route.front());
        }
        ready[child] = sent_s + message_time_s(parent, child);
        down_arrival_s[t][child] = ready[child];
        tree_first_chunk_s[t] = std::max(tree_first_chunk_s[t], ready[child]);
        first_chunk_s = std::max(first_chunk_s, ready[child]);
        order.push_back(child);
      }
    }
    down_ready_s[t] = ready;
  }
  // The other k-1 chunks follow the first one, one service apart at best; or a link direction binds: it passes
  // every chunk of every tree edge routed through it, and it cannot start before its first message can reach it.
  const double chunk_s = c.overhead_s + wire_piece * c.beta_s_per_byte;
  std::map<LinkId, Seconds> work_s;   // per link direction: all its messages' service
  std::map<LinkId, Seconds> start_s;  // per link direction: the earliest its first message can reach it
  struct Edge {
    std::size_t from, to;
    Seconds ready_s;  // when its first chunk is ready at its sender
    Seconds rest_s;   // from its first chunk's arrival to the end of that chunk's way through the tree
  };
  std::vector<Edge> edges;
  for (std::size_t t = 0; t < used_trees; ++t) {
    for (std::size_t i = 0; i < p_count; ++i) {
      const int parent = trees[t].parent[i];
      if (parent < 0) continue;
      const auto up = static_cast<std::size_t>(parent);
      edges.push_back({up, i, down_ready_s[t][up], tree_first_chunk_s[t] - down_arrival_s[t][i]});
    }
  }
  const auto link_service_s = [&](LinkId id) {
    const auto& params = topology.link(id).params;
    return params.overhead_s + wire_piece / params.payload_bandwidth_bytes_per_s();
  };
  for (const auto& edge : edges) {
    const auto& route = topology.route(rank_of(edge.from), rank_of(edge.to));
    for (const LinkId id : route) work_s[id] += k * link_service_s(id);
  }
  for (const auto& edge : edges) {
    const auto& route = topology.route(rank_of(edge.from), rank_of(edge.to));
    Seconds reach_s = 0;
    for (std::size_t h = 0; h < route.size(); ++h) {
      const Seconds at_s = edge.ready_s + reach_s;
      const auto found = start_s.find(route[h]);
      start_s[route[h]] = found == start_s.end() ? at_s : std::min(found->second, at_s);
      reach_s += topology.link(route[h]).params.latency_s;
    }
  }
  // Each edge's last chunk also pays its own protocol step on arrival (a link's bound takes its edges' least).
  std::vector<Seconds> edge_step_s(edges.size(), 0.0);
  std::map<LinkId, Seconds> least_step_s;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto& route = topology.route(rank_of(edges[e].from), rank_of(edges[e].to));
    edge_step_s[e] = protocol_step_s(topology, options.protocol, route);
    for (const LinkId id : route) {
      const auto found = least_step_s.find(id);
      least_step_s[id] = found == least_step_s.end() ? edge_step_s[e] : std::min(found->second, edge_step_s[e]);
    }
  }
  Seconds link_bound_s = 0;
  for (const auto& [id, time_s] : work_s) {
    link_bound_s = std::max(link_bound_s, start_s[id] + time_s + topology.link(id).params.latency_s + least_step_s[id]);
  }
  // A link serves its tree edges' chunks in the order their first chunks reach it: the last chunk of an edge leaves
  // it once the chunks of the edges ahead and its own have passed, and then has the rest of its way to go.
  std::map<LinkId, std::vector<std::pair<Seconds, std::size_t>>> arrivals;  // per link: (first arrival, edge)
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto& route = topology.route(rank_of(edges[e].from), rank_of(edges[e].to));
    Seconds reach_s = edges[e].ready_s;
    for (const LinkId id : route) {
      arrivals[id].emplace_back(reach_s, e);
      reach_s += topology.link(id).params.latency_s;
    }
  }
  for (auto& [id, list] : arrivals) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Seconds served_s = start_s[id];
    for (const auto& [arrival_s, e] : list) {
      served_s += k * link_service_s(id);
      link_bound_s =
          std::max(link_bound_s, served_s + topology.link(id).params.latency_s + edge_step_s[e] + edges[e].rest_s);
    }
  }
  // The first chunk's followers are spaced by the most messages of one tree's phase that share a link direction
  // (a parent's two children send up through its one port on a switch; it sends down to both through it).
  // Each link direction spaces them by its own service (a NIC's link slower than an NVLink port's).
  Seconds fan_s = chunk_s;
  for (std::size_t t = 0; t < used_trees; ++t) {
    std::map<LinkId, double> down_edges;
    for (std::size_t i = 0; i < p_count; ++i) {
      const int parent = trees[t].parent[i];
      if (parent < 0) continue;
      const auto up = static_cast<std::size_t>(parent);
      for (const LinkId id : topology.route(rank_of(up), rank_of(i))) {
        fan_s = std::max(fan_s, (down_edges[id] += 1) * link_service_s(id));
      }
    }
  }
  Seconds busiest_s = 0;  // the most work of one link direction, per chunk of every edge through it
  for (const auto& [id, count] : uses) busiest_s = std::max(busiest_s, count * link_service_s(id));
  const double pipeline_s = first_chunk_s + (k - 1.0) * fan_s;
  // The busiest link passes every chunk of its edges; its last chunk then goes on down the tree (h latencies of a
  // step: Sanders, Speck and Traeff 2009), each edge's route and protocol step on the deepest way.
  Seconds deepest_s = 0;
  for (std::size_t t = 0; t < used_trees; ++t) {
    for (std::size_t i = 0; i < p_count; ++i) {
      Seconds way_s = 0;
      for (int at = static_cast<int>(i); trees[t].parent[static_cast<std::size_t>(at)] >= 0;
           at = trees[t].parent[static_cast<std::size_t>(at)]) {
        const auto from = rank_of(static_cast<std::size_t>(at));
        const auto to = rank_of(static_cast<std::size_t>(trees[t].parent[static_cast<std::size_t>(at)]));
        way_s += path_cost(topology, to, from).latency_s +
                 protocol_step_s(topology, options.protocol, topology.route(to, from));
      }
      deepest_s = std::max(deepest_s, way_s);
    }
  }
  const double bottleneck_s = k * busiest_s + deepest_s;
  // The send window: an edge's chunk j leaves only once its chunk j-W has arrived at the child, so an edge whose
  // window binds passes its chunks W at a time, one message time D apart; its last chunk then has the rest of its
  // way down the tree.
  const double window_chunks = in_flight_chunks(request.send_window_bytes, std::ceil(piece));
  double window_s = 0;
  if (window_chunks < k) {
    const double rounds = std::ceil(k / window_chunks) - 1.0;
    for (const auto& edge : edges) {
      const auto& route = topology.route(rank_of(edge.from), rank_of(edge.to));
      const double message_s_e =
          message_s(topology, route, wire_piece, packet) + protocol_step_s(topology, options.protocol, route);
      window_s = std::max(window_s, edge.ready_s + rounds * message_s_e + message_s_e + edge.rest_s);
    }
  }
  prediction.time_s = options.protocol.launch_s + std::max({pipeline_s, bottleneck_s, link_bound_s, window_s});
  prediction.formula =
      "launch + max(first chunk down (children queued at the parent's port) + (k-1) f c b, m k c b + h L, per port: "
      "first reach + chunks ahead + rest of the way, per edge: ceil(k/W) releases + rest of the way)";
  return prediction;
}

// Rings per level of a multi-dimensional cluster (build_hierarchical): each phase of a slice is the ring prediction
// of its level's slowest group. A slice starts its first phase when the slice before has finished its own first
// phase, so those run back to back; the other phases of successive slices run at once, their step latencies
// overlapping, and are held back only by the links and reducers they share: per slice, the most work of one link
// direction (every phase's ring messages through it) or one device's reducer.
Prediction Problem::hierarchical() const {
  Prediction prediction;
  const auto& levels = request.levels;
  const std::size_t last = levels.size() - 1;
  NetworkOptions inside = options;
  inside.protocol.launch_s = 0;
  std::map<LinkId, Seconds> link_work_s;  // per slice
  std::map<NodeId, Seconds> reducer_work_s;
  const auto phase_s = [&](std::size_t level, CollectiveOp op, double bytes) {
    std::uint64_t stride = 1;
    for (std::size_t l = 0; l < level; ++l) stride *= levels[l];
    CollectiveRequest group = request;
    group.algorithm = Algorithm::ring;
    group.op = op;
    group.channels.clear();
    group.send_window_bytes = 0;
    group.bytes = static_cast<Bytes>(std::llround(bytes));
    const double q = static_cast<double>(levels[level]);
    const double shard = bytes / q;
    const double k = chunks(shard, chunk);
    const double w = wire(options.protocol, shard / k);
    const double steps = op == CollectiveOp::allreduce ? 2.0 * (q - 1.0) : q - 1.0;
    const double reduced = op == CollectiveOp::allgather ? 0.0 : (q - 1.0) * shard;
    Seconds slowest_s = 0;
    for (std::size_t base = 0; base < p_count; ++base) {
      if ((base / stride) % levels[level] != 0) continue;
      group.ranks.clear();
      for (std::uint64_t m = 0; m < levels[level]; ++m) group.ranks.push_back(ranks[base + m * stride]);
      const auto ring = predict(group, topology, inside);
      slowest_s = std::max(slowest_s, ring.time_s);
      prediction.cost = worst(prediction.cost, ring.cost);
      for (std::size_t i = 0; i < group.ranks.size(); ++i) {
        reducer_work_s[group.ranks[i]] += reduced * gamma;
        for (const LinkId id : topology.route(group.ranks[i], group.ranks[(i + 1) % group.ranks.size()])) {
          const auto& params = topology.link(id).params;
          link_work_s[id] += steps * k * (params.overhead_s + w / params.payload_bandwidth_bytes_per_s());
        }
      }
    }
    return slowest_s;
  };
  const double slices = static_cast<double>(hierarchical_slices(request));
  Seconds chain_s = 0;  // one slice through every phase
  Seconds gate_s = 0;   // its first phase
  double buffer = s / slices;
  const auto add = [&](Seconds phase) {
    if (chain_s == 0) gate_s = phase;
    chain_s += phase;
  };
  if (request.op == CollectiveOp::allgather) {
    buffer = s / slices / p;
    for (std::size_t l = last + 1; l-- > 0;) {
      buffer *= static_cast<double>(levels[l]);
      add(phase_s(l, CollectiveOp::allgather, buffer));
    }
  } else {
    const std::size_t scatter_levels = request.op == CollectiveOp::allreduce ? last : last + 1;
    std::vector<double> before;
    for (std::size_t l = 0; l < scatter_levels; ++l) {
      before.push_back(buffer);
      add(phase_s(l, CollectiveOp::reducescatter, buffer));
      buffer /= static_cast<double>(levels[l]);
    }
    if (request.op == CollectiveOp::allreduce) {
      add(phase_s(last, CollectiveOp::allreduce, buffer));
      // The all-gathers of the same buffers on the way back.
      for (std::size_t l = scatter_levels; l-- > 0;) add(phase_s(l, CollectiveOp::allgather, before[l]));
    }
  }
  Seconds period_s = 0;
  for (const auto& entry : link_work_s) period_s = std::max(period_s, entry.second);
  for (const auto& entry : reducer_work_s) period_s = std::max(period_s, entry.second);
  prediction.time_s =
      options.protocol.launch_s + std::max(slices * gate_s + chain_s - gate_s, chain_s + (slices - 1.0) * period_s);
  prediction.formula =
      "launch + max(m first phases + one slice's others, one slice's phases + (m-1) x the busiest link's or reducer's "
      "work per slice)";
  return prediction;
}

// In-network reduction and multicast at a switch (NVLS, see build_in_switch): per chunk of each shard, every rank's
// load goes up, the switch's engines reduce the p copies, the result goes down to the shard's owner, whose store goes
// up and is multicast down to every rank. The time is the largest of: the uplinks' work (loads and stores) and the
// multicast of the last store; the downlinks' work after the first chunk has come back; the switch engines' work
// between the first loads and the last return, store and multicast; one chunk's whole chain after its loads.
Prediction Problem::in_switch() const {
  Prediction prediction;
  const NodeId sw = *request.switch_node;
  const bool broadcast = request.op == CollectiveOp::broadcast;
  const bool reduces = request.op == CollectiveOp::allreduce || request.op == CollectiveOp::reducescatter;
  const bool multicasts = request.op != CollectiveOp::reducescatter;
  const double shards = broadcast ? 1.0 : p;
  const double shard = broadcast ? s : s / p;
  const double k = chunks(shard, chunk);
  const double piece = shard / k;
  const double w = wire(options.protocol, piece);
  const double packet = static_cast<double>(options.packet_bytes);
  const auto trip = switch_round_trip(topology, ranks[0], sw, w, packet);
  const auto& [up, down, up_s, down_s, up_service_s, down_service_s] = trip;
  // Messages on one rank's links: loads (one per shard and chunk) and its own shard's stores up; its own shard's
  // returns and every multicast it receives down (all shards for allreduce, the others' for allgather).
  const double loads = reduces ? k * shards : 0.0;
  const double stores = multicasts ? k : 0.0;
  const double returns = reduces ? k : 0.0;
  const double received = request.op == CollectiveOp::allreduce ? k * shards : multicasts ? k * (shards - 1.0) : 0.0;
  // An all-gather or broadcast only multicasts: the engines reduce nothing.
  const Seconds reduce_s = reduces ? p * piece * options.switch_reduction.gamma_s_per_byte() : 0.0;
  const Seconds after_reduce_s = (reduces ? down_s : 0.0) + (multicasts ? up_s + down_s : 0.0);
  const Seconds before_reduce_s = reduces ? up_s : 0.0;
  const Seconds uplinks_s = (loads + stores) * up_service_s + up.latency_s + (multicasts ? down_s : down.latency_s);
  const Seconds downlinks_s = before_reduce_s + reduce_s + (returns + received) * down_service_s + down.latency_s;
  // The first store queues on its uplink behind the loads issued before it (a window of chunks, every shard's), so
  // the multicasts cannot start before those have passed.
  // The returns of the first window's chunks reach the owner before then; the later ones share its downlink with
  // the multicasts.
  const double window = reduces ? std::min(static_cast<double>(kInSwitchWindowChunks), k) : 0.0;
  const double loads_ahead = window * shards;
  const double later_returns = returns - window;
  const Seconds multicasts_s = multicasts ? (loads_ahead + 1.0) * up_service_s + up.latency_s + reduce_s +
                                                (received + later_returns) * down_service_s + down.latency_s
                                          : 0.0;
  const Seconds engines_s = before_reduce_s + k * shards * reduce_s + after_reduce_s;
  const Seconds chain_s = (reduces ? loads * up_service_s + up.latency_s : 0.0) + reduce_s + after_reduce_s;
  prediction.cost = worst(up, down);
  prediction.time_s = options.protocol.launch_s + std::max({uplinks_s, downlinks_s, multicasts_s, engines_s, chain_s});
  prediction.formula =
      "launch + max(uplink work + multicast, first return + downlink work, loads ahead of the first store + "
      "multicasts and later returns, switch engines, chain)";
  return prediction;
}

// CollNet Direct (see build_collnet): per slice of S/m, a reduce-scatter on a node's ring (the ring prediction), the
// shards' chunks up to their rail's aggregation switch, reduced there (the nodes' copies) and back down to every
// node, pipelined (the first chunk's way, then one chunk per the slowest of the uplink, the switch's engines and the
// downlink), and an all-gather on the node's ring. The slices pipeline: one slice's three phases, then one period per
// further slice, the longer of the node's NVLink work (its reduce-scatter and all-gather share the ports) and the
// fabric phase.
Prediction Problem::collnet() const {
  Prediction prediction;
  const auto per_node = static_cast<std::size_t>(request.levels[0]);
  const double nodes = static_cast<double>(request.levels[1]);
  const double slices = static_cast<double>(hierarchical_slices(request));
  const double slice = s / slices;
  NetworkOptions inside = options;
  inside.protocol.launch_s = 0;
  CollectiveRequest node = request;
  node.algorithm = Algorithm::ring;
  node.ranks.assign(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(per_node));
  node.channels.clear();
  node.send_window_bytes = 0;
  node.bytes = static_cast<Bytes>(std::llround(slice));
  node.op = CollectiveOp::reducescatter;
  const Prediction scatter = predict(node, topology, inside);
  node.op = CollectiveOp::allgather;
  const Prediction gather_phase = predict(node, topology, inside);
  // The fabric phase of device 0's shard (every index's is alike: one rail each).
  const NodeId aggregator = request.aggregation_switches.front();
  const double shard = slice / static_cast<double>(per_node);
  const double k = chunks(shard, chunk);
  const double piece = shard / k;
  const double w = wire(options.protocol, piece);
  const double packet = static_cast<double>(options.packet_bytes);
  const auto trip = switch_round_trip(topology, ranks[0], aggregator, w, packet);
  const Seconds reduce_s = nodes * piece * options.switch_reduction.gamma_s_per_byte();
  const Seconds chunk_period_s = std::max({trip.up_service_s, trip.down_service_s, reduce_s});
  const Seconds fabric_s = trip.up_s + reduce_s + trip.down_s + (k - 1.0) * chunk_period_s;
  const Seconds chain_s = scatter.time_s + fabric_s + gather_phase.time_s;
  // A slice starts its reduce-scatter when the slice before has finished its own (build_collnet_slice); its fabric
  // phase and all-gather overlap the next slices' phases, held back only by what they share, per slice: a node's
  // link directions (its ring's reduce-scatter and all-gather messages), a device's reducer, its rail's links and the
  // aggregation switch's engines.
  const double q = static_cast<double>(per_node);
  const double node_k = chunks(shard, chunk);
  const double node_w = wire(options.protocol, shard / node_k);
  std::map<LinkId, Seconds> link_work_s;
  for (std::size_t i = 0; i < per_node; ++i) {
    for (const LinkId id : topology.route(node.ranks[i], node.ranks[(i + 1) % per_node])) {
      const auto& params = topology.link(id).params;
      link_work_s[id] +=
          2.0 * (q - 1.0) * node_k * (params.overhead_s + node_w / params.payload_bandwidth_bytes_per_s());
    }
  }
  Seconds period_s = (q - 1.0) * shard * gamma;
  for (const auto& entry : link_work_s) period_s = std::max(period_s, entry.second);
  period_s = std::max({period_s, k * trip.up_service_s, k * trip.down_service_s, k * reduce_s});
  prediction.cost = worst(trip.up, trip.down);
  prediction.time_s = options.protocol.launch_s +
                      std::max(slices * scatter.time_s + chain_s - scatter.time_s, chain_s + (slices - 1.0) * period_s);
  prediction.formula =
      "launch + max(m node reduce-scatters + one slice's fabric (up, reduced in the switch, down) and node all-gather, "
      "one slice's phases + (m-1) x the busiest link's, reducer's or switch engine's work per slice)";
  return prediction;
}

}  // namespace

Prediction predict(const CollectiveRequest& request, const Topology& topology, const NetworkOptions& options) {
  const std::size_t p_count = request.ranks.size();
  const double p = static_cast<double>(p_count);
  const Problem problem{request,
                        topology,
                        options,
                        options.reduction.gamma_s_per_byte(),
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
    case Algorithm::collnet: return problem.collnet();
  }
  return Prediction{};
}

Prediction predict(const CollectiveRequest& request, const Topology& topology, Seconds gamma_s_per_byte) {
  NetworkOptions options;
  options.reduction = ReductionModel::per_byte(gamma_s_per_byte);
  return predict(request, topology, options);
}

}  // namespace roofsim::net
