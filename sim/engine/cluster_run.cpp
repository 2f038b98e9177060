#include "sim/engine/cluster_run.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "models/net/network_module.h"
#include "models/net/reduction_model.h"
#include "models/net/topology.h"
#include "sim/config/model_params.h"
#include "sim/core/input_error.h"
#include "sim/engine/collective_sync.h"
#include "sim/engine/device.h"
#include "sim/engine/engine.h"
#include "sim/engine/simulation_loop.h"

namespace roofsim {

namespace {

std::optional<net::CollectiveOp> network_op(OpKind kind) {
  switch (kind) {
    case OpKind::allreduce: return net::CollectiveOp::allreduce;
    case OpKind::allgather: return net::CollectiveOp::allgather;
    case OpKind::reducescatter: return net::CollectiveOp::reducescatter;
    case OpKind::alltoall: return net::CollectiveOp::alltoall;
    case OpKind::broadcast: return net::CollectiveOp::broadcast;
    default: return std::nullopt;
  }
}

// The SystemC shell of a cluster run: owns the simulated devices and the network module, and passes arrivals and
// completions between them and the CollectiveSync policy. It owns no time of its own beyond one event that defers
// the network's completions out of the core's event processing.
class ClusterShell : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ClusterShell);
  ClusterShell(const sc_core::sc_module_name& name, const ClusterParams& cluster, const net::Topology& topology,
               const Workload& workload, RankClasses classes, const ClusterRunOptions& options,
               std::vector<std::uint64_t> group_sizes)
      : sc_core::sc_module(name),
        cluster_(cluster),
        topology_(topology),
        workload_(workload),
        options_(options),
        classes_(classes),
        network_("network", topology, network_options(cluster)),
        sync_(cluster.devices, std::move(classes), std::move(group_sizes)) {
    // Per direction of flow (0: to the next stage, 1: to the previous), the sends and the receives in graph order:
    // the k-th receive of a direction takes the k-th message sent in it.
    std::uint64_t sends[2] = {0, 0}, receives[2] = {0, 0};
    for (const auto& op : workload.ops) {
      const bool p2p = op.kind == OpKind::sendrecv && op.shape.peer != 0;
      const int direction = flow_direction(op);
      ordinal_.push_back(!p2p ? 0 : op.shape.receive ? receives[direction]++ : sends[direction]++);
    }
    for (std::size_t c = 0; c < classes_.count(); ++c) {
      devices_.push_back(std::make_unique<Device>(fmt::format("rank{}", classes_.members[c][0]).c_str(), cluster.device,
                                                  workload, true, options.memoize ? &memo_ : nullptr));
      devices_.back()->dispatcher().on_reached([this, c](std::size_t op) { reached(c, op); });
    }
    busy_.resize(topology.link_count());
    network_.on_reservation([this](const net::LinkReservation& r) {
      auto& periods = busy_[r.link];
      if (!periods.empty() && r.begin_fs <= periods.back().second) {
        periods.back().second = std::max(periods.back().second, r.end_fs);
      } else {
        periods.emplace_back(r.begin_fs, r.end_fs);
      }
    });
    network_.on_completion([this](net::CollectiveId id, TimeFs) {
      completions_.push_back(id);
      wake_.notify(sc_core::SC_ZERO_TIME);
    });
    SC_METHOD(handle_completions);
    sensitive << wake_;
    dont_initialize();
  }

  [[nodiscard]] const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }
  [[nodiscard]] const OpMemoStore& memo() const { return memo_; }
  [[nodiscard]] const std::vector<GroupCollectiveStats>& collectives() const { return stats_; }
  [[nodiscard]] const net::NetworkModule& network() const { return network_; }
  [[nodiscard]] bool idle() const { return sync_.idle(); }
  [[nodiscard]] const std::vector<std::vector<std::pair<TimeFs, TimeFs>>>& busy() const { return busy_; }

 private:
  static net::NetworkOptions network_options(const ClusterParams& cluster) {
    net::NetworkOptions options;
    options.packet_bytes = cluster.collective.packet_bytes;
    if (cluster.collective.reduce_cost == ReduceCost::device) {
      options.reduction = net::ReductionModel(reduction_params(cluster.device, cluster.collective.data_type));
    }
    return options;
  }

  static TimeFs now_fs() { return static_cast<TimeFs>(sc_core::sc_time_stamp().value()); }

  void reached(std::size_t cls, std::size_t op) {
    if (workload_.ops[op].kind == OpKind::sendrecv && workload_.ops[op].shape.peer != 0) {
      reached_p2p(cls, op);
      return;
    }
    std::vector<GroupCollective> ready;
    const auto issue_now = sync_.reached(cls, op, ready);
    for (const auto& collective : ready) ready_fs_[{collective.op, collective.group}] = now_fs();
    for (const auto& collective : issue_now) issue(collective);
  }

  // The group's devices in the algorithm's order: the topology's ring order when the group is every device (a
  // torus walked as a snake), the natural order of a block of consecutive ranks otherwise.
  std::vector<net::NodeId> group_nodes(std::uint64_t group, std::uint64_t size) const {
    if (size == cluster_.devices) return topology_.ring_order();
    std::vector<net::NodeId> nodes;
    for (std::uint64_t r = group * size; r < (group + 1) * size; ++r) nodes.push_back(static_cast<net::NodeId>(r));
    return nodes;
  }

  void issue(const GroupCollective& collective) {
    const Op& op = workload_.ops[collective.op];
    const std::uint64_t size = sync_.group_size(collective.op);
    const auto nodes = group_nodes(collective.group, size);
    auto schedule = std::make_shared<net::Schedule>();
    std::string algorithm;
    if (const auto kind = network_op(op.kind)) {
      net::CollectiveRequest request;
      request.op = *kind;
      request.algorithm = options_.algorithm;
      request.bytes = op.shape.message_bytes;
      request.ranks = nodes;
      request.chunk_bytes = cluster_.collective.chunk_bytes;
      // An algorithm the op has not (alltoall has only direct; tree is allreduce and broadcast only, ...) gives way
      // to ring, and where ring does not exist either, to direct, which every collective has.
      for (const auto fallback : {net::Algorithm::ring, net::Algorithm::direct}) {
        if (net::unsupported_reason(request).empty()) break;
        request.algorithm = fallback;
      }
      *schedule = net::build_schedule(request);
      algorithm = std::string(net::to_string(request.algorithm));
    } else {
      // sendrecv: every rank of the group sends its buffer to the next (a pipeline stage to the following one; in a
      // group of two, an exchange), as one message per rank.
      for (std::size_t i = 0; i < nodes.size() && nodes.size() > 1; ++i) {
        (void)schedule->add_transfer(nodes[i], nodes[(i + 1) % nodes.size()], op.shape.message_bytes);
      }
      schedule->finalize();
      algorithm = "direct";
    }
    GroupCollectiveStats stats;
    stats.op = collective.op;
    stats.name = op.name;
    stats.algorithm = algorithm;
    stats.group = collective.group;
    stats.group_size = size;
    stats.message_bytes = op.shape.message_bytes;
    stats.bytes_sent_per_rank = schedule->bytes_sent_by(static_cast<net::NodeId>(collective.group * size));
    stats.ready_s = fs_to_seconds(ready_fs_.at({collective.op, collective.group}));
    stats.issue_s = fs_to_seconds(now_fs());
    const auto id = network_.issue(std::shared_ptr<const net::Schedule>(std::move(schedule)));
    by_id_[id] = stats_.size();
    stats_.push_back(std::move(stats));
  }

  // The direction data flows in a sendrecv: 0 towards higher stages (a send to +1, a receive from -1), 1 towards
  // lower ones (the backward pass).
  static int flow_direction(const Op& op) { return (op.shape.peer > 0) != op.shape.receive ? 0 : 1; }

  // Pipeline sends and receives (Op::shape.peer, Op::shape.receive): stage = rank mod group size. A send issues one
  // message to stage + peer and ends when it has arrived; a receive ends when the matching send (the same ordinal
  // among the sends of its direction) from stage + peer has arrived. A send or receive past the first or last stage
  // is empty. Classes hold one rank each here (run_cluster does not collapse pipelines).
  void reached_p2p(std::size_t cls, std::size_t op) {
    const Op& o = workload_.ops[op];
    const std::uint64_t rank = classes_.members[cls][0];
    const std::uint64_t stages = sync_.group_size(op);
    const auto stage = static_cast<std::int64_t>(rank % stages);
    const std::int64_t other = stage + o.shape.peer;
    const std::uint64_t other_rank = rank - static_cast<std::uint64_t>(stage) + static_cast<std::uint64_t>(other);
    const MessageKey key{o.shape.receive ? rank : other_rank, flow_direction(o), ordinal_[op]};
    if (other < 0 || other >= static_cast<std::int64_t>(stages)) {
      devices_[cls]->dispatcher().complete(op);
      return;
    }
    if (!o.shape.receive) {
      auto schedule = std::make_shared<net::Schedule>();
      (void)schedule->add_transfer(static_cast<net::NodeId>(rank), static_cast<net::NodeId>(other_rank),
                                   o.shape.message_bytes);
      schedule->finalize();
      GroupCollectiveStats stats;
      stats.op = op;
      stats.name = o.name;
      stats.algorithm = "p2p";
      stats.group = rank;  // groups of one: the sender's own transfer
      stats.group_size = 1;
      stats.message_bytes = o.shape.message_bytes;
      stats.bytes_sent_per_rank = o.shape.message_bytes;
      stats.ready_s = stats.issue_s = fs_to_seconds(now_fs());
      const auto id = network_.issue(std::shared_ptr<const net::Schedule>(std::move(schedule)));
      p2p_[id] = P2p{cls, op, key};
      by_id_[id] = stats_.size();
      stats_.push_back(std::move(stats));
      return;
    }
    if (arrived_.erase(key) > 0) {
      devices_[cls]->dispatcher().complete(op);
      return;
    }
    waiting_[key] = {cls, op};
  }

  void handle_completions() {
    const auto done = std::move(completions_);
    completions_.clear();
    for (const auto id : done) {
      auto& stats = stats_[by_id_.at(id)];
      stats.finish_s = fs_to_seconds(network_.core().finish_fs(id));
      if (const auto p2p = p2p_.find(id); p2p != p2p_.end()) {
        const P2p message = p2p->second;
        p2p_.erase(p2p);
        devices_[message.sender_class]->dispatcher().complete(message.send_op);
        if (const auto waiting = waiting_.find(message.key); waiting != waiting_.end()) {
          devices_[waiting->second.first]->dispatcher().complete(waiting->second.second);
          waiting_.erase(waiting);
        } else {
          arrived_.insert(message.key);
        }
        continue;
      }
      std::vector<std::size_t> completed;
      const auto next = sync_.finished(GroupCollective{stats.op, stats.group}, completed);
      const std::size_t op = stats.op;
      for (const auto cls : completed) devices_[cls]->dispatcher().complete(op);
      for (const auto& collective : next) issue(collective);
    }
  }

  const ClusterParams& cluster_;
  const net::Topology& topology_;
  const Workload& workload_;
  ClusterRunOptions options_;
  RankClasses classes_;
  net::NetworkModule network_;
  CollectiveSync sync_;
  // One store for every simulated rank: the ranks run the same graph on the same device, so a pipeline stage replays
  // what another stage recorded where the signature (the memory state included) matches.
  OpMemoStore memo_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<net::CollectiveId> completions_;
  std::map<net::CollectiveId, std::size_t> by_id_;
  std::map<std::pair<std::size_t, std::uint64_t>, TimeFs> ready_fs_;
  std::vector<GroupCollectiveStats> stats_;
  std::vector<std::vector<std::pair<TimeFs, TimeFs>>> busy_;         // per link direction
  using MessageKey = std::tuple<std::uint64_t, int, std::uint64_t>;  // (receiver rank, direction, ordinal)
  struct P2p {
    std::size_t sender_class = 0;
    std::size_t send_op = 0;
    MessageKey key;
  };
  std::vector<std::uint64_t> ordinal_;  // per op: its index among the sends (or receives) of its direction
  std::map<net::CollectiveId, P2p> p2p_;
  std::set<MessageKey> arrived_;                                       // messages that came before they were awaited
  std::map<MessageKey, std::pair<std::size_t, std::size_t>> waiting_;  // -> (class, op)
  sc_core::sc_event wake_;
};

}  // namespace

BytesPerSecond injection_bandwidth_bytes_per_s(const ClusterParams& cluster) {
  const net::Topology topology(cluster);
  BytesPerSecond injection = 0;
  for (net::LinkId l = 0; l < topology.link_count(); ++l) {
    if (topology.link(l).from == 0) injection += topology.link(l).params.bandwidth_bytes_per_s;
  }
  return injection;
}

Seconds union_length(std::vector<std::pair<Seconds, Seconds>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  Seconds total = 0;
  Seconds end = 0;
  bool open = false;
  for (const auto& [a, b] : intervals) {
    if (b <= a) continue;
    if (!open || a > end) {
      total += b - a;
      end = b;
      open = true;
    } else if (b > end) {
      total += b - end;
      end = b;
    }
  }
  return total;
}

std::vector<std::pair<Seconds, Seconds>> merge_intervals(std::vector<std::pair<Seconds, Seconds>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<Seconds, Seconds>> merged;
  for (const auto& [a, b] : intervals) {
    if (b <= a) continue;
    if (!merged.empty() && a <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, b);
    } else {
      merged.emplace_back(a, b);
    }
  }
  return merged;
}

std::vector<std::pair<Seconds, Seconds>> subtract_intervals(std::vector<std::pair<Seconds, Seconds>> from,
                                                            std::vector<std::pair<Seconds, Seconds>> minus) {
  const auto a = merge_intervals(std::move(from));
  const auto b = merge_intervals(std::move(minus));
  std::vector<std::pair<Seconds, Seconds>> result;
  std::size_t j = 0;
  for (auto [begin, end] : a) {
    while (j < b.size() && b[j].second <= begin) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < end; ++k) {
      if (b[k].first > begin) result.emplace_back(begin, b[k].first);
      begin = std::max(begin, b[k].second);
    }
    if (begin < end) result.emplace_back(begin, end);
  }
  return result;
}

ClusterRunResult run_cluster(const ClusterParams& cluster, const Workload& workload, const ClusterRunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> group_sizes(workload.ops.size(), 0);
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    if (!is_collective(op.kind)) continue;
    const std::uint64_t g = op.shape.group == 0 ? cluster.devices : op.shape.group;
    if (g > cluster.devices || cluster.devices % g != 0) {
      throw InputError(op.pos, fmt::format("op '{}': a group of {} ranks does not divide the cluster's {} devices",
                                           op.name, g, cluster.devices));
    }
    group_sizes[i] = g;
  }
  // Pipeline stages run different parts of the model: no two ranks are symmetric, every rank is simulated.
  const bool pipeline = std::any_of(workload.ops.begin(), workload.ops.end(),
                                    [](const Op& op) { return op.kind == OpKind::sendrecv && op.shape.peer != 0; });
  const net::Topology topology(cluster);
  auto classes = rank_classes(cluster.devices, options.collapse_symmetric && !pipeline);
  // Owned by the SystemC kernel's hierarchy until exit, as the single-device engine's Device.
  auto* shell = new ClusterShell("cluster", cluster, topology, workload, classes, options, group_sizes);
  const bool complete = simulate_until_idle_or_interrupted();
  if (complete && !shell->idle()) {
    throw std::logic_error("the cluster run ended with collectives unfinished (a deadlock)");
  }

  ClusterRunResult result;
  result.cluster = cluster.name;
  result.ranks = cluster.devices;
  if (!complete) {
    // Stopped by a signal: each simulated rank's finished ops, without the figures that need the whole step.
    result.complete = false;
    const Seconds wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    for (std::size_t c = 0; c < classes.count(); ++c) {
      SimulatedRank rank;
      rank.rank = classes.members[c][0];
      rank.represents = classes.members[c].size();
      rank.result = collect_run_result(cluster.device, workload, *shell->devices()[c], wall_s, false);
      result.simulated.push_back(std::move(rank));
    }
    result.wall_s = wall_s;
    return result;
  }
  result.collectives = shell->collectives();
  result.network_events = shell->network().core().events();
  const auto vertex_name = [&](net::NodeId node) {
    switch (topology.node_kind(node)) {
      case net::NodeKind::device: return fmt::format("dev{}", node);
      case net::NodeKind::switch_node: return fmt::format("sw{}", node);
      case net::NodeKind::nic: return fmt::format("nic{}", node);
    }
    return std::to_string(node);
  };
  for (net::LinkId l = 0; l < topology.link_count(); ++l) {
    if (shell->busy()[l].empty()) continue;
    LinkBusy busy;
    busy.name = vertex_name(topology.link(l).from) + "->" + vertex_name(topology.link(l).to);
    for (const auto& [begin, end] : shell->busy()[l])
      busy.periods.emplace_back(fs_to_seconds(begin), fs_to_seconds(end));
    result.links.push_back(std::move(busy));
  }
  const Seconds wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (std::size_t c = 0; c < classes.count(); ++c) {
    SimulatedRank rank;
    rank.rank = classes.members[c][0];
    rank.represents = classes.members[c].size();
    rank.result = collect_run_result(cluster.device, workload, *shell->devices()[c], wall_s);
    rank.result.ops_replayed = shell->memo().replayed;
    rank.result.ops_recorded = shell->memo().recorded;
    rank.result.memo_signatures = shell->memo().size();
    // Communication: the rank's collectives and sends/receives from the moment it reached them until they ended
    // on it (waiting for the other ranks of the group, for the communicator, for the network, or, on a receive,
    // for the previous stage's message): time the rank's communication stream was occupied.
    std::vector<std::pair<Seconds, Seconds>> compute, communication;
    for (std::size_t i = 0; i < rank.result.ops.size(); ++i) {
      const auto& op = rank.result.ops[i];
      if (op.simulated) compute.emplace_back(op.launch_s, op.end_s);
      if (!op.simulated && is_collective(workload.ops[i].kind)) communication.emplace_back(op.launch_s, op.end_s);
      rank.step.flops += op.useful_flops;
    }
    for (const auto& collective : result.collectives) {
      const bool member = rank.rank / collective.group_size == collective.group;
      if (!member) continue;
      rank.step.network_bytes_sent += collective.bytes_sent_per_rank;
      auto& op = rank.result.ops[collective.op];
      op.note = collective.algorithm == "p2p"
                    ? fmt::format("network: send to pipeline stage {:+}", workload.ops[collective.op].shape.peer)
                    : fmt::format("network: {} over {} ranks", collective.algorithm, collective.group_size);
    }
    rank.step.step_s = rank.result.sim_time_s;
    rank.step.compute_s = union_length(compute);
    rank.step.communication_s = union_length(communication);
    rank.step.exposed_periods = subtract_intervals(communication, compute);
    rank.step.exposed_communication_s = union_length(rank.step.exposed_periods);
    result.sim_time_s = std::max(result.sim_time_s, rank.result.sim_time_s);
    result.simulated.push_back(std::move(rank));
  }
  // The symmetry the collapse assumed: every group of a collective finished at the same time.
  std::map<std::size_t, std::pair<Seconds, Seconds>> spread;
  for (const auto& collective : result.collectives) {
    auto [it, fresh] = spread.try_emplace(collective.op, collective.finish_s, collective.finish_s);
    if (!fresh) {
      it->second.first = std::min(it->second.first, collective.finish_s);
      it->second.second = std::max(it->second.second, collective.finish_s);
    }
  }
  Seconds worst = 0;
  for (const auto& [op, range] : spread) worst = std::max(worst, range.second - range.first);
  result.symmetric = worst == 0;
  if (pipeline) {
    result.symmetry =
        fmt::format("compute simulated for all {} ranks (pipeline stages are not symmetric)", cluster.devices);
  } else if (options.collapse_symmetric) {
    result.symmetry = fmt::format(
        "compute simulated for 1 representative of {} symmetric ranks (same graph, same device); network simulated "
        "for all {} ranks; {}",
        cluster.devices, cluster.devices,
        result.symmetric ? "every collective's groups finished together, so the collapse is exact"
                         : fmt::format("groups of a collective finished up to {:.3f} us apart: the representative "
                                       "waited for the last",
                                       worst * 1e6));
  } else {
    result.symmetry = fmt::format("compute simulated for all {} ranks", cluster.devices);
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace roofsim
