#include "sim/engine/cluster_run.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <iostream>
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
#include "sim/engine/progress.h"
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

// The groups of each op of a graph (size 0 for an op that is not a collective or a pipeline send/receive).
std::vector<GroupLayout> group_layouts(const Workload& graph, std::uint64_t devices) {
  std::vector<GroupLayout> layouts(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (!is_collective(op.kind)) continue;
    layouts[i].size = op.shape.group == 0 ? devices : op.shape.group;
    layouts[i].stride = op.shape.group_stride == 0 ? 1 : op.shape.group_stride;
  }
  return layouts;
}

bool is_pipeline_p2p(const Op& op) {
  return op.kind == OpKind::sendrecv && op.shape.peer != 0;
}

// The SystemC shell of a cluster run: owns the simulated devices and the network module, and passes arrivals and
// completions between them and the CollectiveSync policy. It owns no time of its own beyond one event that defers
// the network's completions out of the core's event processing.
class ClusterShell : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ClusterShell);
  ClusterShell(const sc_core::sc_module_name& name, const ClusterParams& cluster, const net::Topology& topology,
               std::vector<const Workload*> graphs, RankClasses classes, std::vector<std::size_t> graph_of_class,
               const ClusterRunOptions& options)
      : sc_core::sc_module(name),
        cluster_(cluster),
        topology_(topology),
        graphs_(std::move(graphs)),
        options_(options),
        classes_(classes),
        graph_of_class_(graph_of_class),
        network_("network", topology, network_options(cluster, options.memoize)),
        sync_(cluster.devices, std::move(classes), layouts_of(graphs_, cluster.devices), std::move(graph_of_class)) {
    // Per graph and direction of flow (0: to the next stage, 1: to the previous), the sends and the receives in
    // graph order: the k-th receive of a direction takes the k-th message sent in it.
    for (const auto* graph : graphs_) {
      std::uint64_t sends[2] = {0, 0}, receives[2] = {0, 0};
      auto& ordinals = ordinal_.emplace_back();
      for (const auto& op : graph->ops) {
        const int direction = flow_direction(op);
        ordinals.push_back(!is_pipeline_p2p(op) ? 0 : op.shape.receive ? receives[direction]++ : sends[direction]++);
      }
    }
    memo_.fast_forward = options.memoize && options.fast_forward;
    for (std::size_t c = 0; c < classes_.count(); ++c) {
      devices_.push_back(std::make_unique<Device>(fmt::format("rank{}", classes_.members[c][0]).c_str(), cluster.device,
                                                  *graphs_[graph_of_class_[c]], true,
                                                  options.memoize ? &memo_ : nullptr));
      devices_.back()->dispatcher().on_reached([this, c](std::size_t op) { reached(c, op); });
      // The cluster's trace.json shows ops and collectives, not tiles.
      devices_.back()->dispatcher().tile_spans().keep(false);
    }
    busy_.resize(topology.link_count());
    open_busy_.assign(topology.link_count(), kNoPeriod);
    represented_by_.assign(cluster.devices, classes_.count());
    for (std::size_t c = 0; c < classes_.count(); ++c) represented_by_[classes_.members[c][0]] = c;
    sender_class_.assign(topology.link_count(), kNoClass);
    for (std::size_t l = 0; l < topology.link_count(); ++l) {
      const auto& link = topology.link(static_cast<net::LinkId>(l));
      if (topology.node_kind(link.from) != net::NodeKind::device || link.from >= represented_by_.size()) continue;
      if (represented_by_[link.from] != classes_.count()) {
        sender_class_[l] = represented_by_[link.from];
        // Its reservations spend a simulated device's link energy while the governor reads it.
        network_.watch(static_cast<net::LinkId>(l));
      }
    }
    network_.on_reservation([this](const net::LinkReservation& r) {
      // Every packet train crossing a link reports here, mostly back to back with the one before: the open period
      // of each link sits in one flat array, and a link's list is touched only when a period closes.
      auto& open = open_busy_[r.link];
      if (open != kNoPeriod && r.begin_fs <= open.second) {
        open.second = std::max(open.second, r.end_fs);
      } else {
        if (open != kNoPeriod) busy_[r.link].push_back(open);
        open = {r.begin_fs, r.end_fs};
      }
      if (sender_class_[r.link] != kNoClass) book_link_energy(r, sender_class_[r.link]);
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
  [[nodiscard]] bool idle() const { return sync_.idle() && p2p_.empty() && waiting_.empty(); }
  // The links' busy periods, handed over once the run is over.
  [[nodiscard]] std::vector<std::vector<std::pair<TimeFs, TimeFs>>> take_busy() {
    for (std::size_t l = 0; l < busy_.size(); ++l) {
      if (open_busy_[l] != kNoPeriod) busy_[l].push_back(open_busy_[l]);
      open_busy_[l] = kNoPeriod;
    }
    return std::move(busy_);
  }

 private:
  using MessageKey = std::tuple<std::uint64_t, int, std::uint64_t>;  // (receiver rank, direction, ordinal)
  struct P2p {
    std::size_t sender_class = 0;
    std::size_t send_op = 0;
    MessageKey key;
  };

  static std::vector<std::vector<GroupLayout>> layouts_of(const std::vector<const Workload*>& graphs,
                                                          std::uint64_t devices) {
    std::vector<std::vector<GroupLayout>> layouts;
    for (const auto* graph : graphs) layouts.push_back(group_layouts(*graph, devices));
    return layouts;
  }

  static net::NetworkOptions network_options(const ClusterParams& cluster, bool memoize) {
    net::NetworkOptions options;
    options.memoize = memoize;
    options.packet_bytes = cluster.collective.packet_bytes;
    if (cluster.collective.reduce_cost == ReduceCost::device) {
      options.reduction = net::ReductionModel(reduction_params(cluster.device, cluster.collective.data_type));
    }
    return options;
  }

  static TimeFs now_fs() { return static_cast<TimeFs>(sc_core::sc_time_stamp().value()); }

  // A message leaving a simulated rank's device (a link from it: NVLink to a switch or a neighbour, PCIe to its NIC)
  // spends the device's link energy per byte on the wire, link headers included, over its reservation. The network
  // times in femtoseconds, as the kernel does (1 fs resolution).
  // `cls`: the class whose simulated device the link leaves.
  void book_link_energy(const net::LinkReservation& r, std::size_t cls) {
    const auto& link = topology_.link(r.link);
    if (r.collective >= by_id_.size() || by_id_[r.collective] == kNoStats) return;
    const double wire_bytes =
        static_cast<double>(r.bytes) * link.params.bandwidth_bytes_per_s / link.params.payload_bandwidth_bytes_per_s();
    devices_[cls]->add_link_transfer(stats_[by_id_[r.collective]].op, r.begin_fs, r.end_fs, wire_bytes);
  }

  [[nodiscard]] const Op& op_of(std::size_t cls, std::size_t op) const {
    return graphs_[graph_of_class_[cls]]->ops[op];
  }

  void reached(std::size_t cls, std::size_t op) {
    if (is_pipeline_p2p(op_of(cls, op))) {
      reached_p2p(cls, op);
      return;
    }
    std::vector<GroupCollective> ready;
    const auto issue_now = sync_.reached(cls, op, ready);
    for (const auto& collective : ready) ready_fs_[{collective.graph, collective.op, collective.group}] = now_fs();
    for (const auto& collective : issue_now) issue(collective);
  }

  // The group's devices in the algorithm's order: the topology's ring order when the group is every device (a
  // torus walked as a snake), the members in rank order otherwise.
  std::vector<net::NodeId> group_nodes(const GroupLayout& layout, std::uint64_t group) const {
    if (layout.size == cluster_.devices) return topology_.ring_order();
    std::vector<net::NodeId> nodes;
    for (std::uint64_t i = 0; i < layout.size; ++i) nodes.push_back(static_cast<net::NodeId>(layout.member(group, i)));
    return nodes;
  }

  void issue(const GroupCollective& collective) {
    const Op& op = graphs_[collective.graph]->ops[collective.op];
    const GroupLayout& layout = sync_.layout(collective);
    const auto nodes = group_nodes(layout, collective.group);
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
    stats.graph = collective.graph;
    stats.name = op.name;
    stats.algorithm = algorithm;
    stats.group = collective.group;
    stats.group_size = layout.size;
    stats.group_stride = layout.stride;
    stats.message_bytes = op.shape.message_bytes;
    stats.bytes_sent_per_rank = schedule->bytes_sent_by(static_cast<net::NodeId>(layout.first(collective.group)));
    stats.ready_s = fs_to_seconds(ready_fs_.at({collective.graph, collective.op, collective.group}));
    ready_fs_.erase({collective.graph, collective.op, collective.group});
    stats.issue_s = fs_to_seconds(now_fs());
    const auto id = network_.issue(std::shared_ptr<const net::Schedule>(std::move(schedule)));
    note_stats(id);
    stats_.push_back(std::move(stats));
  }

  // The direction data flows in a sendrecv: 0 towards higher stages (a send to +1, a receive from -1), 1 towards
  // lower ones (the backward pass).
  static int flow_direction(const Op& op) { return (op.shape.peer > 0) != op.shape.receive ? 0 : 1; }

  // Pipeline sends and receives (Op::shape.peer, Op::shape.receive) of every member of a class (the members are of
  // one stage): stage = GroupLayout::index_of(rank). A send issues one message per member to its rank at stage + peer
  // and ends when all have arrived; a receive ends when the matching send (the same ordinal among the sends of its
  // direction) from stage + peer has arrived at every member. A send or receive past the first or last stage is empty.
  void reached_p2p(std::size_t cls, std::size_t op) {
    const std::size_t graph = graph_of_class_[cls];
    const Op& o = graphs_[graph]->ops[op];
    const GroupLayout& layout = sync_.layout_of_class(cls, op);
    const auto& members = classes_.members[cls];
    const auto stage = static_cast<std::int64_t>(layout.index_of(members.front()));
    const std::int64_t other = stage + o.shape.peer;
    if (other < 0 || other >= static_cast<std::int64_t>(layout.size)) {
      devices_[cls]->dispatcher().complete(op);
      return;
    }
    const auto other_rank = [&](std::uint64_t rank) {
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(rank) +
                                        o.shape.peer * static_cast<std::int64_t>(layout.stride));
    };
    const int direction = flow_direction(o);
    const std::uint64_t ordinal = ordinal_[graph][op];
    if (!o.shape.receive) {
      open_sends_[{cls, op}] = members.size();
      for (const auto rank : members) {
        const std::uint64_t to = other_rank(rank);
        auto schedule = std::make_shared<net::Schedule>();
        (void)schedule->add_transfer(static_cast<net::NodeId>(rank), static_cast<net::NodeId>(to),
                                     o.shape.message_bytes);
        schedule->finalize();
        GroupCollectiveStats stats;
        stats.op = op;
        stats.graph = graph;
        stats.name = o.name;
        stats.algorithm = "p2p";
        stats.group = rank;  // groups of one: the sender's own transfer
        stats.group_size = 1;
        stats.message_bytes = o.shape.message_bytes;
        stats.bytes_sent_per_rank = o.shape.message_bytes;
        stats.ready_s = stats.issue_s = fs_to_seconds(now_fs());
        const auto id = network_.issue(std::shared_ptr<const net::Schedule>(std::move(schedule)));
        p2p_[id] = P2p{cls, op, MessageKey{to, direction, ordinal}};
        note_stats(id);
        stats_.push_back(std::move(stats));
      }
      return;
    }
    std::uint64_t missing = 0;
    for (const auto rank : members) {
      const MessageKey key{rank, direction, ordinal};
      if (arrived_.erase(key) > 0) continue;
      waiting_[key] = {cls, op};
      ++missing;
    }
    if (missing == 0) {
      devices_[cls]->dispatcher().complete(op);
    } else {
      open_receives_[{cls, op}] = missing;
    }
  }

  void message_arrived(const P2p& message) {
    auto& sends = open_sends_.at({message.sender_class, message.send_op});
    if (--sends == 0) {
      open_sends_.erase({message.sender_class, message.send_op});
      devices_[message.sender_class]->dispatcher().complete(message.send_op);
    }
    const auto waiting = waiting_.find(message.key);
    if (waiting == waiting_.end()) {
      arrived_.insert(message.key);
      return;
    }
    const auto receiver = waiting->second;
    waiting_.erase(waiting);
    auto& missing = open_receives_.at(receiver);
    if (--missing == 0) {
      open_receives_.erase(receiver);
      devices_[receiver.first]->dispatcher().complete(receiver.second);
    }
  }

  void handle_completions() {
    auto done = std::move(completions_);
    completions_.clear();
    // Collectives that finish at the same time are taken in the order they were issued, not in the order the network
    // happened to process their last events: a replayed collective's end is one event scheduled when it starts, a
    // simulated one's the last of its own, and the next collectives must be issued in the same order either way.
    std::sort(done.begin(), done.end());
    for (const auto id : done) {
      if (id >= by_id_.size() || by_id_[id] == kNoStats) throw std::logic_error("cluster run: a collective not issued");
      auto& stats = stats_[by_id_[id]];
      stats.finish_s = fs_to_seconds(network_.core().finish_fs(id));
      if (const auto p2p = p2p_.find(id); p2p != p2p_.end()) {
        const P2p message = p2p->second;
        p2p_.erase(p2p);
        message_arrived(message);
        continue;
      }
      std::vector<std::size_t> completed;
      const auto next = sync_.finished(GroupCollective{stats.op, stats.group, stats.graph}, completed);
      const std::size_t op = stats.op;
      for (const auto cls : completed) devices_[cls]->dispatcher().complete(op);
      for (const auto& collective : next) issue(collective);
    }
  }

  const ClusterParams& cluster_;
  const net::Topology& topology_;
  std::vector<const Workload*> graphs_;
  ClusterRunOptions options_;
  RankClasses classes_;
  std::vector<std::size_t> graph_of_class_;
  net::NetworkModule network_;
  CollectiveSync sync_;
  // One store for every simulated rank: the ranks run the same ops on the same device, so a pipeline stage replays
  // what another stage recorded where the signature (the memory state included) matches.
  OpMemoStore memo_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<net::CollectiveId> completions_;
  // Per collective (the network numbers them from 0 as they are issued): its entry in stats_, kNoStats for none. A
  // vector, not a map: every link reservation of the run looks its collective up.
  static constexpr std::size_t kNoStats = ~std::size_t{0};
  std::vector<std::size_t> by_id_;
  void note_stats(net::CollectiveId id) {
    if (by_id_.size() <= id) by_id_.resize(std::size_t{id} + 1, kNoStats);
    by_id_[id] = stats_.size();
  }
  std::vector<std::size_t> represented_by_;  // per rank: the class it is the simulated device of (count(): none)
  std::map<std::tuple<std::size_t, std::size_t, std::uint64_t>, TimeFs> ready_fs_;  // (graph, op, group)
  std::vector<GroupCollectiveStats> stats_;
  std::vector<std::vector<std::pair<TimeFs, TimeFs>>> busy_;  // per link direction, the periods closed
  static constexpr std::pair<TimeFs, TimeFs> kNoPeriod{kNever, kNever};
  std::vector<std::pair<TimeFs, TimeFs>> open_busy_;  // per link direction, the last period (kNoPeriod: none yet)
  static constexpr std::size_t kNoClass = ~std::size_t{0};
  std::vector<std::size_t> sender_class_;            // per link direction: the class of the simulated device it leaves
  std::vector<std::vector<std::uint64_t>> ordinal_;  // per graph and op: its index among the sends (or receives)
                                                     // of its direction
  std::map<net::CollectiveId, P2p> p2p_;
  std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> open_sends_;     // (class, op) -> messages in flight
  std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> open_receives_;  // (class, op) -> messages missing
  std::set<MessageKey> arrived_;                                       // messages that came before they were awaited
  std::map<MessageKey, std::pair<std::size_t, std::size_t>> waiting_;  // -> (class, op)
  sc_core::sc_event wake_;
};

}  // namespace

BytesPerSecond injection_bandwidth_bytes_per_s(const ClusterParams& cluster) {
  const net::Topology topology(cluster);
  BytesPerSecond injection = 0;
  for (net::LinkId l = 0; l < topology.link_count(); ++l) {
    if (topology.link(l).from == 0) injection += topology.link(l).params.payload_bandwidth_bytes_per_s();
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

namespace {

// The stages and stride of a graph's pipeline sends and receives, or nullopt without any (or when they disagree).
std::optional<GroupLayout> pipeline_layout(const Workload& graph, std::uint64_t devices) {
  std::optional<GroupLayout> found;
  for (const auto& op : graph.ops) {
    if (!is_pipeline_p2p(op)) continue;
    const GroupLayout layout{op.shape.group == 0 ? devices : op.shape.group,
                             op.shape.group_stride == 0 ? 1 : op.shape.group_stride};
    if (found && (found->size != layout.size || found->stride != layout.stride)) return GroupLayout{devices, 1};
    found = layout;
  }
  return found;
}

}  // namespace

ClusterRunResult run_cluster(const ClusterParams& cluster, const Workload& workload, const ClusterRunOptions& options) {
  return run_cluster(cluster, std::vector<const Workload*>{&workload}, options);
}

ClusterRunResult run_cluster(const ClusterParams& cluster, const std::vector<const Workload*>& graphs,
                             const ClusterRunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (graphs.empty()) throw std::invalid_argument("run_cluster needs a graph");
  for (const auto* graph : graphs) {
    for (const Op& op : graph->ops) {
      if (!is_collective(op.kind)) continue;
      const std::uint64_t g = op.shape.group == 0 ? cluster.devices : op.shape.group;
      const std::uint64_t stride = op.shape.group_stride == 0 ? 1 : op.shape.group_stride;
      if (g > cluster.devices || cluster.devices % g != 0) {
        throw InputError(op.pos, fmt::format("op '{}': a group of {} ranks does not divide the cluster's {} devices",
                                             op.name, g, cluster.devices));
      }
      if (cluster.devices % (g * stride) != 0) {
        throw InputError(
            op.pos, fmt::format("op '{}': groups of {} ranks {} apart do not tile the cluster's {} devices", op.name, g,
                                stride, cluster.devices));
      }
    }
  }
  // Pipeline stages run different parts of the schedule: the ranks of one stage are symmetric, those of different
  // stages are not, so each stage is a class (every rank its own class when the stages are single ranks).
  const auto pipeline = pipeline_layout(*graphs.front(), cluster.devices);
  if (graphs.size() > 1 && (!pipeline || pipeline->size != graphs.size())) {
    throw InputError(SourcePos{graphs.front()->file}, fmt::format("{} stage graphs for a pipeline of {} stages",
                                                                  graphs.size(), pipeline ? pipeline->size : 1));
  }
  const net::Topology topology(cluster);
  RankClasses classes;
  if (!options.collapse_symmetric) {
    classes = rank_classes(cluster.devices, false);
  } else if (pipeline) {
    classes = rank_classes_by_stage(cluster.devices, pipeline->size, pipeline->stride);
  } else {
    classes = rank_classes(cluster.devices, true);
  }
  std::vector<std::size_t> graph_of_class(classes.count(), 0);
  if (graphs.size() > 1) {
    for (std::size_t c = 0; c < classes.count(); ++c) graph_of_class[c] = pipeline->index_of(classes.members[c][0]);
  }
  // Owned by the SystemC kernel's hierarchy until exit, as the single-device engine's Device.
  auto* shell = new ClusterShell("cluster", cluster, topology, graphs, classes, graph_of_class, options);
  // Progress over the simulated representatives: their ops are what the run spends its time on.
  std::uint64_t total_ops = 0;
  Flops total_flops = 0;
  for (const std::size_t graph : graph_of_class) {
    total_ops += graphs[graph]->ops.size();
    for (const Op& op : graphs[graph]->ops) total_flops += op.useful_flops;
  }
  ProgressReport progress(total_ops, total_flops, options.progress ? &std::cerr : nullptr);
  const bool complete = simulate_until_idle_or_interrupted([&]() {
    if (!options.progress) return;
    std::uint64_t done_ops = 0;
    Flops done_flops = 0;
    for (std::size_t c = 0; c < shell->devices().size(); ++c) {
      const Workload& graph = *graphs[graph_of_class[c]];
      const auto& policy = shell->devices()[c]->policy();
      done_ops += policy.done_ops();
      for (std::size_t i = 0; i < graph.ops.size(); ++i) {
        if (policy.times(i).end_fs != kNever) done_flops += graph.ops[i].useful_flops;
      }
    }
    progress.report(done_ops, done_flops, fs_to_seconds(sc_core::sc_time_stamp().value()),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  });
  if (complete && !shell->idle()) {
    throw std::logic_error("the cluster run ended with collectives unfinished (a deadlock)");
  }

  ClusterRunResult result;
  result.cluster = cluster.name;
  result.ranks = cluster.devices;
  result.graphs = graphs;
  const auto simulated_rank = [&](std::size_t c) {
    SimulatedRank rank;
    rank.rank = classes.members[c][0];
    rank.graph = graph_of_class[c];
    rank.represents = classes.members[c].size();
    return rank;
  };
  if (!complete) {
    // Stopped by a signal: each simulated rank's finished ops, without the figures that need the whole step.
    result.complete = false;
    const Seconds wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    for (std::size_t c = 0; c < classes.count(); ++c) {
      SimulatedRank rank = simulated_rank(c);
      rank.result = collect_run_result(cluster.device, *graphs[rank.graph], *shell->devices()[c], wall_s, false);
      result.simulated.push_back(std::move(rank));
    }
    result.wall_s = wall_s;
    return result;
  }
  result.collectives = shell->collectives();
  result.network_events = shell->network().core().events();
  result.collectives_replayed = shell->network().core().replayed();
  result.collectives_resumed = shell->network().core().resumed();
  const auto vertex_name = [&](net::NodeId node) {
    switch (topology.node_kind(node)) {
      case net::NodeKind::device: return fmt::format("dev{}", node);
      case net::NodeKind::switch_node: return fmt::format("sw{}", node);
      case net::NodeKind::nic: return fmt::format("nic{}", node);
    }
    return std::to_string(node);
  };
  auto link_periods = shell->take_busy();
  for (net::LinkId l = 0; l < topology.link_count(); ++l) {
    if (link_periods[l].empty()) continue;
    LinkBusy busy;
    busy.name = vertex_name(topology.link(l).from) + "->" + vertex_name(topology.link(l).to);
    busy.periods.reserve(link_periods[l].size());
    for (const auto& [begin, end] : link_periods[l])
      busy.periods.emplace_back(fs_to_seconds(begin), fs_to_seconds(end));
    // Freed as it is converted: on a thousand ranks the links' periods are the largest thing a run keeps.
    std::vector<std::pair<TimeFs, TimeFs>>().swap(link_periods[l]);
    result.links.push_back(std::move(busy));
  }
  const Seconds wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (std::size_t c = 0; c < classes.count(); ++c) {
    SimulatedRank rank = simulated_rank(c);
    const Workload& graph = *graphs[rank.graph];
    rank.result = collect_run_result(cluster.device, graph, *shell->devices()[c], wall_s);
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
      if (!op.simulated && is_collective(graph.ops[i].kind)) communication.emplace_back(op.launch_s, op.end_s);
      rank.step.flops += op.useful_flops;
    }
    for (const auto& collective : result.collectives) {
      const GroupLayout layout{collective.group_size, collective.group_stride};
      const bool member = collective.graph == rank.graph && layout.group_of(rank.rank) == collective.group;
      if (!member) continue;
      rank.step.network_bytes_sent += collective.bytes_sent_per_rank;
      auto& op = rank.result.ops[collective.op];
      op.note = collective.algorithm == "p2p"
                    ? fmt::format("network: send to pipeline stage {:+}", graph.ops[collective.op].shape.peer)
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
  // The symmetry the collapse assumed: within a class, every group of a collective (every message of a send)
  // finished at the same time.
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::pair<Seconds, Seconds>> spread;
  for (const auto& collective : result.collectives) {
    const GroupLayout layout{collective.group_size, collective.group_stride};
    const std::size_t cls = classes.class_of_rank[layout.first(collective.group)];
    auto [it, fresh] =
        spread.try_emplace({collective.graph, collective.op, cls}, collective.finish_s, collective.finish_s);
    if (!fresh) {
      it->second.first = std::min(it->second.first, collective.finish_s);
      it->second.second = std::max(it->second.second, collective.finish_s);
    }
  }
  Seconds worst = 0;
  for (const auto& [op, range] : spread) worst = std::max(worst, range.second - range.first);
  result.symmetric = worst == 0;
  const std::string verdict = result.symmetric
                                  ? "every collective's groups finished together, so the collapse is exact"
                                  : fmt::format(
                                        "groups of a collective finished up to {:.3f} us apart: the representative "
                                        "waited for the last",
                                        worst * 1e6);
  if (pipeline && classes.count() == cluster.devices) {
    result.symmetry =
        fmt::format("compute simulated for all {} ranks (pipeline stages are not symmetric)", cluster.devices);
  } else if (!options.collapse_symmetric) {
    result.symmetry = fmt::format("compute simulated for all {} ranks", cluster.devices);
  } else if (pipeline) {
    result.symmetry = fmt::format(
        "compute simulated for 1 representative of each of the {} pipeline stages ({} symmetric ranks each: same "
        "graph, same device); network simulated for all {} ranks; {}",
        classes.count(), cluster.devices / classes.count(), cluster.devices,
        result.symmetric ? "every collective's groups and every stage's messages finished together within a stage, "
                           "so the collapse is exact"
                         : verdict);
  } else {
    result.symmetry = fmt::format(
        "compute simulated for 1 representative of {} symmetric ranks (same graph, same device); network simulated "
        "for all {} ranks; {}",
        cluster.devices, cluster.devices, verdict);
  }
  if (options.memoize && classes.count() > 1) {
    // What the simulated devices share: one store of memoized ops, so an op instance one representative simulated
    // is replayed on the others where its signature (its memory state included) matches; the network is not shared.
    result.symmetry +=
        fmt::format("; the {} simulated ranks share one store of memoized ops ({} replayed, {} recorded over them)",
                    classes.count(), shell->memo().replayed, shell->memo().recorded);
  }
  if (options.memoize) {
    const OpGroupStore& groups = shell->memo().groups;
    result.symmetry += fmt::format(
        "; overlap groups: {} replayed ({} ops), {} recorded ({} keys), {} diverged, {} not recorded; ops simulated "
        "beside an op outside a group {}, in groups not yet agreed {}",
        groups.replayed, groups.members_replayed, groups.recorded, groups.size(), groups.diverged, groups.unrecorded,
        groups.beside_started, groups.in_unagreed_group);
    const auto& core = shell->network().core();
    result.symmetry += fmt::format(
        "; collectives replayed on links they had to themselves: {} ({} reached by another before the end and "
        "simulated on from there)",
        core.replayed(), core.resumed());
    if (options.fast_forward) {
      const OpMemoStore& memo = shell->memo();
      result.symmetry += fmt::format(
          "; fast-forwarded {} ops ({} waves skipped, {} steps inside tiles, {} skips through a clock "
          "change)",
          memo.fast_forwarded, memo.skipped_waves, memo.skipped_steps, memo.skips_through_changes);
    }
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace roofsim
