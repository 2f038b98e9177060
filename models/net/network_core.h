#pragma once
// The network as a discrete-event core in plain C++: it plays collective schedules over the topology. Each link
// direction is a FIFO resource with a busy-until time; a message reserves each link of its route when its first
// packet reaches it (one event per message and hop), so contention between flows emerges from the order in which
// they reach a link. Each device's reductions queue on one FIFO resource (its vector engine and memory). With
// NetworkOptions::memoize a collective that has its links and reducers to itself is replayed from the record of one
// that played alike (collective_memo.h), exactly.
//
// The API is the one the engine calls (Network II): issue a schedule at a time, advance to a time, learn when it
// finished. NetworkModule (network_module.h) drives it from SystemC; `roofsim collective` runs it alone.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "models/kernel/quad_heap.h"
#include "models/net/collective_memo.h"
#include "models/net/collectives.h"
#include "models/net/link_reservation.h"
#include "models/net/packet_train.h"
#include "models/net/protocol.h"
#include "models/net/reduction_model.h"
#include "models/net/schedule.h"
#include "models/net/topology.h"

namespace roofsim::net {

struct NetworkOptions {
  Bytes packet_bytes = 64 * 1024;
  ReductionModel reduction;         // a device's reductions; default: free
  ReductionModel switch_reduction;  // a reducing switch's engines, per byte of operands it takes in; default: free
  // The wire protocol: a transfer of n payload bytes puts protocol.wire_bytes(n) on its links, and arrives
  // max(0, step latency - the route's link latencies) after its last packet (NCCL's step latency counts the wire too).
  // Default: an ideal wire.
  ProtocolCost protocol;
  // Replays a collective that would play exactly as one simulated before (collective_memo.h): same schedule on links
  // of the same parameters, all of them and its reducers idle at its start and left to it until it finishes. Off:
  // every collective is simulated.
  bool memoize = false;
};

// The protocol's step latency beyond the route's own (NCCL's step latencies count the wire too): the NVLink figure
// on routes between GPUs of a node, the network figure on routes that cross a NIC; never negative.
[[nodiscard]] Seconds protocol_step_s(const Topology& topology, const ProtocolCost& protocol,
                                      const std::vector<LinkId>& route);

class NetworkCore {
 public:
  using CompletionHandler = std::function<void(CollectiveId, TimeFs)>;

  NetworkCore(const Topology& topology, NetworkOptions options);

  // Starts a schedule at `start_fs` (not before the time already simulated). Returns its id.
  CollectiveId issue(std::shared_ptr<const Schedule> schedule, TimeFs start_fs);
  // The same for a collective on a group of ranks (request.ranks): its schedule is built here.
  CollectiveId issue(const CollectiveRequest& request, TimeFs start_fs);
  // Called when a collective's last op finishes, with its finish time.
  void on_completion(CompletionHandler handler) { on_completion_ = std::move(handler); }
  // Called for every link reservation (for traces of busy links); none by default.
  void on_reservation(std::function<void(const LinkReservation&)> observer) { on_reservation_ = std::move(observer); }

  [[nodiscard]] std::optional<TimeFs> next_event_fs() const;
  // Processes every event at or before `limit_fs`.
  void run_until(TimeFs limit_fs);
  // Processes every event; returns the time of the last.
  TimeFs run();

  [[nodiscard]] bool finished(CollectiveId id) const { return collectives_[id].remaining_ops == 0; }
  [[nodiscard]] TimeFs start_fs(CollectiveId id) const { return collectives_[id].start_fs; }
  [[nodiscard]] TimeFs finish_fs(CollectiveId id) const { return collectives_[id].finish_fs; }
  [[nodiscard]] TimeFs now_fs() const { return now_fs_; }
  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] const LinkStats& link_stats(LinkId id) const { return links_[id].stats; }
  [[nodiscard]] const Topology& topology() const { return *topology_; }
  [[nodiscard]] const NetworkOptions& options() const { return options_; }
  // A link whose reservations must be reported as they happen (an observer reads them while the run goes on: the link
  // energy of a simulated device); collectives that cross it are simulated, never replayed.
  void watch(LinkId link) { watched_[link] = true; }
  // Collectives replayed from a record, and replays that another collective reached before they finished (they went
  // on simulated from there).
  [[nodiscard]] std::uint64_t replayed() const { return replayed_; }
  [[nodiscard]] std::uint64_t resumed() const { return resumed_; }

 private:
  enum class EventKind : std::uint8_t { start, hop, done, replay_done };
  struct Event {
    TimeFs time_fs;
    CollectiveId collective;
    OpId op;
    std::uint32_t train;  // slot of the message in flight (hop events)
    std::uint32_t hop;
    EventKind kind;
  };
  // A pending event in 16 bytes for the four-way heap: its time, then the order it was scheduled in (ties go to the
  // earlier-scheduled event: deterministic) above the index of its Event in pending_events_. A thousand-GPU step
  // schedules hundreds of millions of hops; a binary heap of the whole events cost a cache miss per level.
  using Pending = TimedKey;
  static constexpr unsigned kEventIndexBits = 24;
  static constexpr std::uint64_t kSequenceLimit = 1ULL << (64 - kEventIndexBits);
  struct Collective {
    std::shared_ptr<const Schedule> schedule;
    std::vector<std::uint32_t> waiting;  // unfinished dependencies per op
    std::size_t remaining_ops = 0;
    TimeFs start_fs = 0;
    TimeFs finish_fs = 0;
    // With memoize: the links and reducers it holds until it finishes, the record it replays (until it finishes or
    // another collective reaches its resources), what it reserved while it ran alone (to be recorded), and whether
    // another collective shared its resources.
    std::unique_ptr<CollectiveFootprint> footprint;
    const CollectiveRecord* replay = nullptr;
    bool recording = false;
    bool shared = false;
    std::vector<LinkReservation> reservations;
    std::vector<CollectiveMemo::Reduction> reductions;
  };
  struct InFlight {
    PacketTrain train;
    const std::vector<LinkId>* route;
    TimeFs protocol_fs;  // the protocol's step latency beyond the route's own, added on arrival
  };

  void schedule_event(TimeFs time_fs, EventKind kind, CollectiveId collective, OpId op, std::uint32_t train = 0,
                      std::uint32_t hop = 0);
  void process(const Event& event);
  void start_op(CollectiveId collective, OpId op, TimeFs now_fs);
  void cross_hop(CollectiveId collective, OpId op, std::uint32_t train, std::uint32_t hop);
  void finish_op(CollectiveId collective, OpId op, TimeFs now_fs);
  // Memoization: takes a new collective's resources and replays it if it may; gives them back when it finishes.
  [[nodiscard]] bool claim(CollectiveId id, TimeFs start_fs);
  void release(Collective& collective);
  // A replay reached by another collective at `now_fs` goes on simulated from the state it had reached; one whose
  // time is up finishes.
  void resume(CollectiveId id, TimeFs now_fs);
  void finish_replay(CollectiveId id);
  [[nodiscard]] std::uint32_t take_slot(const InFlight& flight);
  // Books a reservation on its link (busy-until time, totals), reports it, and records it for a recording collective:
  // the one path of a simulated hop, a replay's end and a resumed replay's past.
  void book(const LinkReservation& reservation);

  const Topology* topology_;
  NetworkOptions options_;
  // What a hop reads and writes of its link direction, in one host cache line: a thousand-GPU step crosses hundreds
  // of millions of hops over tens of thousands of link directions, each hop a cold line.
  struct alignas(64) LinkState {
    TimeFs busy_until_fs = 0;
    BytesPerSecond payload_bytes_per_s = 0;
    TimeFs overhead_fs = 0;
    TimeFs latency_fs = 0;
    LinkStats stats;
    // With memoize: the collectives in flight that use it, and the first of them.
    std::uint32_t users = 0;
    CollectiveId owner = 0;
  };
  static_assert(sizeof(LinkState) == 64);
  std::vector<LinkState> links_;
  std::vector<TimeFs> reducer_busy_until_fs_;  // per vertex (devices only reduce)
  std::vector<bool> watched_;                  // per link
  std::vector<std::uint32_t> reducer_users_;   // with memoize: per vertex, as LinkState::users and owner
  std::vector<CollectiveId> reducer_owner_;
  std::unique_ptr<CollectiveMemo> memo_;
  CollectiveFootprint footprint_;  // the footprint of the collective being issued
  std::uint64_t replayed_ = 0;
  std::uint64_t resumed_ = 0;
  std::vector<Collective> collectives_;
  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> free_slots_;
  // Pops the first pending event; its time is the event's.
  [[nodiscard]] Event pop_event();
  QuadHeap<Pending> queue_;
  std::vector<Event> pending_events_;
  std::vector<std::uint32_t> free_events_;
  std::uint64_t sequence_ = 0;
  std::uint64_t events_ = 0;
  TimeFs now_fs_ = 0;
  CompletionHandler on_completion_;
  std::function<void(const LinkReservation&)> on_reservation_;
};

struct CollectiveRun {
  Seconds time_s = 0;
  std::uint64_t events = 0;
  std::uint64_t transfers = 0;
};
// Builds the request's schedule and plays it alone on an idle network (what `roofsim collective` measures); the
// first step starts after the protocol's launch latency.
[[nodiscard]] CollectiveRun run_collective(const Topology& topology, const CollectiveRequest& request,
                                           const NetworkOptions& options);

}  // namespace roofsim::net
