#include "models/net/network_core.h"

#include "models/net/collectives.h"

#include <algorithm>
#include <stdexcept>

namespace roofsim::net {

NetworkCore::NetworkCore(const Topology& topology, NetworkOptions options)
    : topology_(&topology),
      options_(std::move(options)),
      links_(topology.link_count()),
      reducer_busy_until_fs_(topology.node_count(), 0) {
  if (options_.packet_bytes == 0) throw std::invalid_argument("network: packet size must be greater than 0");
  for (std::size_t l = 0; l < links_.size(); ++l) {
    const auto& params = topology.link(static_cast<LinkId>(l)).params;
    links_[l].payload_bytes_per_s = params.payload_bandwidth_bytes_per_s();
    links_[l].overhead_fs = to_fs(params.overhead_s);
    links_[l].latency_fs = to_fs(params.latency_s);
  }
}

CollectiveId NetworkCore::issue(std::shared_ptr<const Schedule> schedule, TimeFs start_fs) {
  if (start_fs < now_fs_) throw std::logic_error("network: a collective cannot start in the past");
  if (!schedule->finalized()) throw std::logic_error("network: a schedule must be finalized before it is issued");
  const auto id = static_cast<CollectiveId>(collectives_.size());
  Collective collective;
  collective.waiting.resize(schedule->size());
  for (OpId op = 0; op < schedule->size(); ++op) collective.waiting[op] = schedule->dependency_count(op);
  collective.remaining_ops = schedule->size();
  collective.start_fs = start_fs;
  collective.finish_fs = start_fs;
  collective.schedule = std::move(schedule);
  const bool empty = collective.remaining_ops == 0;
  collectives_.push_back(std::move(collective));
  if (empty) {
    if (on_completion_) on_completion_(id, start_fs);
  } else {
    schedule_event(start_fs, EventKind::start, id, 0);
  }
  return id;
}

CollectiveId NetworkCore::issue(const CollectiveRequest& request, TimeFs start_fs) {
  return issue(std::make_shared<const Schedule>(build_schedule(request)), start_fs);
}

void NetworkCore::schedule_event(TimeFs time_fs, EventKind kind, CollectiveId collective, OpId op, std::uint32_t train,
                                 std::uint32_t hop) {
  if (sequence_ == kSequenceLimit) throw std::logic_error("network: more than 2^40 events scheduled");
  std::uint32_t index = 0;
  if (free_events_.empty()) {
    if (pending_events_.size() >= (1ULL << kEventIndexBits)) throw std::logic_error("network: 2^24 events pending");
    index = static_cast<std::uint32_t>(pending_events_.size());
    pending_events_.emplace_back();
  } else {
    index = free_events_.back();
    free_events_.pop_back();
  }
  pending_events_[index] = Event{time_fs, collective, op, train, hop, kind};
  queue_.push(Pending{time_fs, sequence_++ << kEventIndexBits | index});
}

NetworkCore::Event NetworkCore::pop_event() {
  const auto index = static_cast<std::uint32_t>(queue_.top().key & ((1ULL << kEventIndexBits) - 1));
  queue_.pop();
  free_events_.push_back(index);
  return pending_events_[index];
}

std::optional<TimeFs> NetworkCore::next_event_fs() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.top().at;
}

void NetworkCore::run_until(TimeFs limit_fs) {
  while (!queue_.empty() && queue_.top().at <= limit_fs) {
    const Event event = pop_event();
    now_fs_ = event.time_fs;
    ++events_;
    process(event);
  }
  now_fs_ = std::max(now_fs_, limit_fs);
}

TimeFs NetworkCore::run() {
  while (!queue_.empty()) {
    const Event event = pop_event();
    now_fs_ = event.time_fs;
    ++events_;
    process(event);
  }
  return now_fs_;
}

void NetworkCore::process(const Event& event) {
  switch (event.kind) {
    case EventKind::start: {
      const auto& schedule = *collectives_[event.collective].schedule;
      for (OpId op = 0; op < schedule.size(); ++op) {
        if (schedule.dependency_count(op) == 0) start_op(event.collective, op, event.time_fs);
      }
      break;
    }
    case EventKind::hop: cross_hop(event.collective, event.op, event.train, event.hop); break;
    case EventKind::done: finish_op(event.collective, event.op, event.time_fs); break;
  }
}

void NetworkCore::start_op(CollectiveId collective, OpId op_id, TimeFs now_fs) {
  const ScheduleOp& op = collectives_[collective].schedule->op(op_id);
  switch (op.kind) {
    case OpKind::join: schedule_event(now_fs, EventKind::done, collective, op_id); break;
    case OpKind::reduce: {
      auto& busy = reducer_busy_until_fs_[op.src];
      const TimeFs begin = std::max(busy, now_fs);
      const auto& engine =
          topology_->node_kind(op.src) == NodeKind::device ? options_.reduction : options_.switch_reduction;
      busy = begin + to_fs(engine.time_s(op.bytes));
      schedule_event(busy, EventKind::done, collective, op_id);
      break;
    }
    case OpKind::transfer: {
      const auto& route = topology_->route(op.src, op.dst);
      if (route.empty()) {
        schedule_event(now_fs, EventKind::done, collective, op_id);
        break;
      }
      std::uint32_t slot = 0;
      InFlight flight{PacketTrain(options_.protocol.wire_bytes(op.bytes), options_.packet_bytes, now_fs), &route,
                      to_fs(protocol_step_s(*topology_, options_.protocol, route))};
      if (free_slots_.empty()) {
        slot = static_cast<std::uint32_t>(in_flight_.size());
        in_flight_.push_back(flight);
      } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
        in_flight_[slot] = flight;
      }
      // The first link is reserved now: the message is at its input at this very time.
      cross_hop(collective, op_id, slot, 0);
      break;
    }
  }
}

Seconds protocol_step_s(const Topology& topology, const ProtocolCost& protocol, const std::vector<LinkId>& route) {
  if (protocol.hop_nvlink_s <= 0 && protocol.hop_network_s <= 0) return 0;
  Seconds wire_s = 0;
  bool network = false;
  for (const LinkId id : route) {
    const auto& link = topology.link(id);
    wire_s += link.params.latency_s;
    network = network || topology.node_kind(link.from) == NodeKind::nic;
  }
  const Seconds step_s = network ? protocol.hop_network_s : protocol.hop_nvlink_s;
  return std::max(0.0, step_s - wire_s);
}

void NetworkCore::cross_hop(CollectiveId collective, OpId op, std::uint32_t slot, std::uint32_t hop) {
  auto& flight = in_flight_[slot];
  const LinkId link_id = (*flight.route)[hop];
  LinkState& link = links_[link_id];
  auto& busy_until = link.busy_until_fs;
  const TimeFs begin = std::max(busy_until, flight.train.first_arrival_fs());
  flight.train.cross(busy_until, link.payload_bytes_per_s, link.overhead_fs, link.latency_fs);
  auto& stats = link.stats;
  stats.bytes += flight.train.bytes();
  stats.messages += 1;
  stats.busy_fs += busy_until - begin;
  if (on_reservation_)
    on_reservation_(LinkReservation{link_id, collective, op, begin, busy_until, flight.train.bytes()});
  if (hop + 1 < flight.route->size()) {
    schedule_event(flight.train.first_arrival_fs(), EventKind::hop, collective, op, slot, hop + 1);
  } else {
    schedule_event(flight.train.last_arrival_fs() + flight.protocol_fs, EventKind::done, collective, op);
    free_slots_.push_back(slot);
  }
}

void NetworkCore::finish_op(CollectiveId collective_id, OpId op, TimeFs now_fs) {
  auto& collective = collectives_[collective_id];
  const auto& schedule = *collective.schedule;
  for (const OpId* next = schedule.successors_begin(op); next != schedule.successors_end(op); ++next) {
    if (--collective.waiting[*next] == 0) start_op(collective_id, *next, now_fs);
  }
  collective.finish_fs = std::max(collective.finish_fs, now_fs);
  if (--collective.remaining_ops != 0) return;
  // Nothing reads a finished collective's schedule again: a training step on a thousand ranks issues tens of
  // thousands of collectives, whose schedules would otherwise stay in memory (gigabytes) until the run ends.
  collective.schedule.reset();
  std::vector<std::uint32_t>().swap(collective.waiting);
  if (on_completion_) on_completion_(collective_id, collective.finish_fs);
}

CollectiveRun run_collective(const Topology& topology, const CollectiveRequest& request,
                             const NetworkOptions& options) {
  auto schedule = std::make_shared<const Schedule>(build_schedule(request));
  NetworkCore core(topology, options);
  const auto id = core.issue(schedule, to_fs(options.protocol.launch_s));
  (void)core.run();
  CollectiveRun result;
  result.time_s = to_seconds(core.finish_fs(id));
  result.events = core.events();
  result.transfers = schedule->transfers();
  return result;
}

}  // namespace roofsim::net
