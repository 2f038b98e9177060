#include "models/net/network_core.h"

#include "models/net/collectives.h"

#include <algorithm>
#include <stdexcept>

namespace roofsim::net {

NetworkCore::NetworkCore(const Topology& topology, NetworkOptions options)
    : topology_(&topology),
      options_(std::move(options)),
      links_(topology.link_count()),
      reducer_busy_until_fs_(topology.node_count(), 0),
      watched_(topology.link_count(), false),
      reducer_users_(topology.node_count(), 0),
      reducer_owner_(topology.node_count(), 0) {
  if (options_.packet_bytes == 0) throw std::invalid_argument("network: packet size must be greater than 0");
  if (options_.memoize) memo_ = std::make_unique<CollectiveMemo>(topology);
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
  } else if (!memo_ || !claim(id, start_fs)) {
    schedule_event(start_fs, EventKind::start, id, 0);
  }
  return id;
}

bool NetworkCore::claim(CollectiveId id, TimeFs start_fs) {
  // Built in one buffer kept from collective to collective (keys run to tens of kilobytes); a collective keeps only
  // its resources, and its key if it records.
  memo_->footprint_of(*collectives_[id].schedule, footprint_);
  // A replay holding what this collective needs goes on simulated from where it stands (or finishes, if its time is
  // up), so that the two meet on the links as they would have had both been simulated.
  for (const LinkId link : footprint_.links) {
    if (links_[link].users != 0 && collectives_[links_[link].owner].replay != nullptr)
      resume(links_[link].owner, start_fs);
  }
  for (const NodeId vertex : footprint_.reducers) {
    if (reducer_users_[vertex] != 0 && collectives_[reducer_owner_[vertex]].replay != nullptr) {
      resume(reducer_owner_[vertex], start_fs);
    }
  }
  bool alone = true;
  bool watched = false;
  for (const LinkId link : footprint_.links) {
    auto& state = links_[link];
    if (state.users != 0) collectives_[state.owner].shared = true;
    alone = alone && state.users == 0 && state.busy_until_fs <= start_fs;
    watched = watched || watched_[link];
    if (state.users++ == 0) state.owner = id;
  }
  for (const NodeId vertex : footprint_.reducers) {
    if (reducer_users_[vertex] != 0) collectives_[reducer_owner_[vertex]].shared = true;
    alone = alone && reducer_users_[vertex] == 0 && reducer_busy_until_fs_[vertex] <= start_fs;
    if (reducer_users_[vertex]++ == 0) reducer_owner_[vertex] = id;
  }
  auto& collective = collectives_[id];
  const CollectiveRecord* record = alone ? memo_->find(footprint_.key) : nullptr;
  collective.footprint = std::make_unique<CollectiveFootprint>();
  collective.footprint->links = footprint_.links;
  collective.footprint->reducers = footprint_.reducers;
  if (!alone) return false;
  if (record == nullptr) {
    collective.footprint->key = footprint_.key;
    collective.recording = true;
    return false;
  }
  if (watched) return false;
  collective.replay = record;
  ++replayed_;
  schedule_event(start_fs + record->duration_fs, EventKind::replay_done, id, 0);
  return true;
}

void NetworkCore::release(Collective& collective) {
  for (const LinkId link : collective.footprint->links) --links_[link].users;
  for (const NodeId vertex : collective.footprint->reducers) --reducer_users_[vertex];
  collective.footprint.reset();
  std::vector<LinkReservation>().swap(collective.reservations);
  std::vector<CollectiveMemo::Reduction>().swap(collective.reductions);
}

void NetworkCore::finish_replay(CollectiveId id) {
  auto& collective = collectives_[id];
  const CollectiveRecord& record = *collective.replay;
  const CollectiveFootprint& footprint = *collective.footprint;
  const TimeFs start = collective.start_fs;
  // No one else reserved these links while the replay held them: its reservations, booked now, come in each link's
  // order.
  for (const auto& r : record.reservations) {
    book(LinkReservation{footprint.links[r.link], id, r.op, start + r.begin_fs, start + r.end_fs, r.bytes});
  }
  for (const auto& r : record.reductions) {
    auto& busy = reducer_busy_until_fs_[footprint.reducers[r.reducer]];
    busy = std::max(busy, start + r.busy_until_fs);
  }
  collective.replay = nullptr;
  collective.remaining_ops = 0;
  collective.finish_fs = start + record.duration_fs;
  release(collective);
  collective.schedule.reset();
  std::vector<std::uint32_t>().swap(collective.waiting);
  if (on_completion_) on_completion_(id, collective.finish_fs);
}

void NetworkCore::resume(CollectiveId id, TimeFs now_fs) {
  auto& collective = collectives_[id];
  if (collective.start_fs + collective.replay->duration_fs <= now_fs) {
    finish_replay(id);
    return;
  }
  // The collective had its resources to itself until now: alone on an idle network it reaches the same state. This
  // core has processed the events at `now_fs` once its time has reached it (issue() is never called from inside its
  // event processing), none of them before; so does the copy. (A replay still running at `now_fs` replays a
  // collective of nonzero duration that had finished when it started, so `now_fs` > 0.)
  NetworkOptions alone_options = options_;
  alone_options.memoize = false;
  NetworkCore alone(*topology_, alone_options);
  std::vector<LinkReservation> reserved;
  alone.on_reservation([&reserved](const LinkReservation& r) { reserved.push_back(r); });
  const CollectiveId copy = alone.issue(collective.schedule, collective.start_fs);
  alone.run_until(now_fs_ >= now_fs ? now_fs : now_fs - 1);
  for (auto r : reserved) {
    r.collective = id;
    book(r);
  }
  const CollectiveFootprint& footprint = *collective.footprint;
  for (const NodeId vertex : footprint.reducers) {
    reducer_busy_until_fs_[vertex] = std::max(reducer_busy_until_fs_[vertex], alone.reducer_busy_until_fs_[vertex]);
  }
  auto& state = alone.collectives_[copy];
  collective.waiting = std::move(state.waiting);
  collective.remaining_ops = state.remaining_ops;
  collective.finish_fs = state.finish_fs;
  collective.replay = nullptr;
  collective.shared = true;
  constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot_of(alone.in_flight_.size(), kNoSlot);
  // Popped in the copy's order, the pending events keep their order among themselves here.
  while (!alone.queue_.empty()) {
    const Event event = alone.pop_event();
    std::uint32_t slot = 0;
    if (event.kind == EventKind::hop) {
      if (slot_of[event.train] == kNoSlot) slot_of[event.train] = take_slot(alone.in_flight_[event.train]);
      slot = slot_of[event.train];
    }
    schedule_event(event.time_fs, event.kind, id, event.op, slot, event.hop);
  }
  events_ += alone.events_;
  ++resumed_;
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
    case EventKind::replay_done:
      // A replay that another collective reached went on simulated; its own events finish it then.
      if (collectives_[event.collective].replay != nullptr) finish_replay(event.collective);
      break;
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
      if (memo_ && collectives_[collective].recording) collectives_[collective].reductions.push_back({op.src, busy});
      schedule_event(busy, EventKind::done, collective, op_id);
      break;
    }
    case OpKind::transfer: {
      const auto& route = topology_->route(op.src, op.dst);
      if (route.empty()) {
        schedule_event(now_fs, EventKind::done, collective, op_id);
        break;
      }
      const std::uint32_t slot =
          take_slot(InFlight{PacketTrain(options_.protocol.wire_bytes(op.bytes), options_.packet_bytes, now_fs), &route,
                             to_fs(protocol_step_s(*topology_, options_.protocol, route))});
      // The first link is reserved now: the message is at its input at this very time.
      cross_hop(collective, op_id, slot, 0);
      break;
    }
  }
}

std::uint32_t NetworkCore::take_slot(const InFlight& flight) {
  if (free_slots_.empty()) {
    in_flight_.push_back(flight);
    return static_cast<std::uint32_t>(in_flight_.size() - 1);
  }
  const std::uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  in_flight_[slot] = flight;
  return slot;
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
  book(LinkReservation{link_id, collective, op, begin, busy_until, flight.train.bytes()});
  if (hop + 1 < flight.route->size()) {
    schedule_event(flight.train.first_arrival_fs(), EventKind::hop, collective, op, slot, hop + 1);
  } else {
    schedule_event(flight.train.last_arrival_fs() + flight.protocol_fs, EventKind::done, collective, op);
    free_slots_.push_back(slot);
  }
}

void NetworkCore::book(const LinkReservation& r) {
  LinkState& link = links_[r.link];
  link.busy_until_fs = std::max(link.busy_until_fs, r.end_fs);
  link.stats.bytes += r.bytes;
  link.stats.messages += 1;
  link.stats.busy_fs += r.end_fs - r.begin_fs;
  if (on_reservation_) on_reservation_(r);
  if (memo_ && collectives_[r.collective].recording) collectives_[r.collective].reservations.push_back(r);
}

void NetworkCore::finish_op(CollectiveId collective_id, OpId op, TimeFs now_fs) {
  auto& collective = collectives_[collective_id];
  const auto& schedule = *collective.schedule;
  for (const OpId* next = schedule.successors_begin(op); next != schedule.successors_end(op); ++next) {
    if (--collective.waiting[*next] == 0) start_op(collective_id, *next, now_fs);
  }
  collective.finish_fs = std::max(collective.finish_fs, now_fs);
  if (--collective.remaining_ops != 0) return;
  if (memo_) {
    if (collective.recording && !collective.shared) {
      auto record = memo_->make_record(*collective.footprint, collective.start_fs, collective.finish_fs,
                                       collective.reservations, collective.reductions);
      memo_->insert(std::move(collective.footprint->key), std::move(record));
    }
    release(collective);
  }
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
