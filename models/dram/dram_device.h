#pragma once
// The DRAM of one device as a SystemC module: the channels (pseudo-channels for HBM) of its stacks, each a plain
// DramChannel controller, behind one address mapping. The module only owns time: it wakes when a request arrives or
// when a channel's next decision is due, lets the channels decide up to the current cycle, reports completions and
// sleeps until the next due decision.
//
// Requests (models/kernel/dram_interface.h) of any size are accepted: the device splits each into the parts that fall
// in one channel, bank and row (by the address mapping) and queues them, so the engine's chunks (at most a row)
// become a few parts each, one decision each. try_submit() returns false, taking nothing, when a channel the request
// touches has a full queue: wait for space_event() and try again. A request completes when its last data beat has
// transferred (reads: the data is back; writes: the data is in the DRAM). Completion is reported in two optional
// ways: the sink's dram_done(tag, done), called from the device's process as soon as the completion time is known,
// which is when the request's last part is scheduled, at or before `done` (callers that must act at `done` notify
// their own event); and an event, notified by the device at `done`.
//
// In trace mode (attach_source) the device's front end keeps a buffer per channel as deep as its read queue, and at
// least as deep as the bursts the mapping puts in a row into one channel: a request whose channel is full waits there,
// in order with the others of its channel, while the requests behind it go to the other channels (a stream of 32 B
// requests puts 128 in a row into one HBM2 or HBM3 channel; blocking the whole source on it would serve the channels
// one at a time). The source stops only when such a buffer is full too.
//
// Where the standard's pseudo-channels share their channel's command pins (shared_command_bus), channels
// p * k .. p * k + p - 1 (p pseudo-channels per channel) are the pseudo-channels of channel k and take turns on its
// row command bus.
//
// Parameters: DramParams (models/dram/dram_params.h: standard, mapping, page policy, scheduler, refresh, queues) and
// the number of channels to simulate (default: all of the device's).
// Wakes on: try_submit() (a delta later), a channel's decision cycle, the next request of an attached source.
// Statistics: collect() after the run (DramRunStats, dram_stats.h).
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include <systemc>

#include "models/dram/address_mapping.h"
#include "models/dram/dram_channel.h"
#include "models/dram/dram_clock.h"
#include "models/dram/dram_params.h"
#include "models/dram/dram_request_source.h"
#include "models/dram/dram_stats.h"
#include "models/kernel/device_scheduler.h"
#include "models/kernel/time_fs.h"

namespace roofsim::dram {

// Told of every request part as the controller schedules it (before the request's on_done), with the request's tag:
// what it cost (row opened, turnaround, refresh), for statistics per requester.
class DramPartObserver {
 public:
  virtual void part_done(std::uint64_t tag, const SegmentDone& part) = 0;

 protected:
  ~DramPartObserver() = default;
};

class DramDevice : public sc_core::sc_module, private Wakeable {
 public:
  SC_HAS_PROCESS(DramDevice);
  // Throws InputError when the mapping does not parse. `channels` = 0 simulates all of the device's channels.
  DramDevice(const sc_core::sc_module_name& name, const DramParams& dram, std::uint32_t channels = 0);

  // Queues a request arriving now (its arrival_fs is not read); false (and nothing queued) when a channel it
  // touches is full: wait for space_event(). `sink` (with the request's tag) and `done_event` hear of its completion.
  [[nodiscard]] bool try_submit(const DramRequest& request, DramCompletionSink* sink = nullptr,
                                sc_core::sc_event* done_event = nullptr);
  [[nodiscard]] const sc_core::sc_event& space_event() const { return space_event_; }
  // Pulls requests from `source` as their times come and the queues have room (trace mode).
  void attach_source(DramRequestSource& source);
  // Reports every part to `observer` (null: none); it must outlive the run.
  void set_observer(DramPartObserver* observer) { observer_ = observer; }
  // The engine device's scheduler calls its wake-ups (device_scheduler.h); alone, the device notifies itself.
  void attach_scheduler(DeviceScheduler& scheduler) { wake_.attach(scheduler, *this); }
  // Whether collect() lists every read's latency (trace mode's percentiles; the engine measures its own, and a
  // long run's list would take gigabytes).
  void keep_read_latencies(bool keep) { keep_latencies_ = keep; }
  // The device is the only process of the simulation (`roofsim dram`): one activation goes through up to
  // kStepsPerActivation wake-ups, at the times the kernel would have woken it, instead of a kernel event each (the
  // bound keeps the run stoppable between the kernel's slices).
  void set_sole_process(bool sole) { sole_process_ = sole; }

  // Issues, on each channel without queued work, the refreshes due by `end_fs`: a memoized replay's interval, in which
  // no request arrives and whose record holds the refreshes of its own interval, so that the next op's first decision
  // is not charged with them.
  void refresh_idle_until(TimeFs end_fs);
  // The same up to a time of each channel's own: end_fs less lag_fs[channel] (the refreshes a recorded op left due
  // at its end, which the next op's first decision on that channel issues; refresh_lag_fs).
  void refresh_idle_until(TimeFs end_fs, const std::vector<TimeFs>& lag_fs);
  // For each channel, how long before `at_fs` its first refresh not yet issued fell due (0: none due by then).
  [[nodiscard]] std::vector<TimeFs> refresh_lag_fs(TimeFs at_fs) const;
  // The statistics so far; refreshes are accounted up to the last completion.
  [[nodiscard]] DramRunStats collect();
  [[nodiscard]] std::uint32_t channels() const { return static_cast<std::uint32_t>(channels_.size()); }
  [[nodiscard]] const AddressMapping& mapping() const { return mapping_; }
  [[nodiscard]] const DramParams& params() const { return dram_; }
  [[nodiscard]] const DramChannel& channel(std::uint32_t index) const { return *channels_[index]; }
  // Refreshes postponed while busy and not yet repaid, over all channels: the debt the next stretch inherits.
  [[nodiscard]] std::uint64_t refresh_owed() const {
    std::uint64_t owed = 0;
    for (const auto& channel : channels_) owed += channel->refresh_owed();
    return owed;
  }
  [[nodiscard]] std::uint64_t activations() const { return activations_; }  // wake-ups, for benchmarks

 private:
  struct InFlight {
    TimeFs arrival_fs = 0;
    Cycle done = 0;
    std::uint32_t remaining = 0;
    Bytes bytes = 0;
    bool is_write = false;
    sc_core::sc_event* done_event = nullptr;
    DramCompletionSink* done_sink = nullptr;
    std::uint64_t tag = 0;
  };

  void wake();
  void wake_now() override { wake(); }
  // Splits into per-channel parts and queues them; false when a channel lacks room. `done_sink` and `done_event`
  // (null for a source's request) receive the completion.
  bool enqueue(const DramRequest& request, DramCompletionSink* done_sink, sc_core::sc_event* done_event);
  void pull_source();
  // Queues the front end's buffered requests, oldest first per channel, while their channels have room.
  void drain_front_end();
  // Releases the queue entries held until now (DramChannel::release_until) of the channels a refused request found
  // full; true when any was released.
  bool release_blocked(Cycle now_cycle);
  void complete_part(const SegmentDone& part);
  // One wake-up at now_fs_: releases, pulls, decides; false when nothing is due, else the time of the next.
  [[nodiscard]] bool wake_step(TimeFs& next_fs);

  DramParams dram_;
  DramClock clock_;
  AddressMapping mapping_;
  DecisionScratch decision_scratch_;  // shared by the channels (declared first: they keep a pointer to it)
  std::vector<std::unique_ptr<DramChannel>> channels_;
  // Channels [k x bus_group_, (k + 1) x bus_group_) share one row command bus (an HBM channel's pseudo-channels).
  std::uint32_t bus_group_ = 1;
  std::vector<Cycle> finished_scratch_;  // refresh_idle_until's cycle per channel
  struct Part {
    std::uint32_t channel = 0;
    Segment segment;
    std::uint64_t first_burst = 0;
  };
  std::vector<Part> parts_;                   // scratch of enqueue()
  std::vector<std::uint32_t> channel_parts_;  // scratch of enqueue(): parts per channel
  bool parts_valid_ = false;                  // parts_ hold the split of a refused request
  std::uint64_t parts_address_ = 0;
  Bytes parts_bytes_ = 0;
  bool parts_write_ = false;
  // Counts the requests queued and the held entries released (the only changes of a channel's room): a refused
  // request is offered again only when it moved since the refusal (parts_epoch_).
  std::uint64_t space_epoch_ = 0, parts_epoch_ = 0;
  std::vector<InFlight> in_flight_;
  std::vector<std::uint64_t> free_slots_;
  DramRequestSource* source_ = nullptr;
  DramPartObserver* observer_ = nullptr;
  bool source_blocked_ = false;
  bool waiting_for_space_ = false;
  bool in_wake_ = false;
  bool space_freed_ = false;
  sc_core::sc_event wake_event_, space_event_;
  WakeHandle wake_{wake_event_};
  DramRunStats stats_;
  bool any_request_ = false;
  bool keep_latencies_ = true;
  // Bit c of word c / 64: channel c has queued work (wake() visits only those), and its next decision's cycle
  // (kNever without work).
  std::vector<std::uint64_t> busy_channels_;
  std::vector<Cycle> due_;
  std::vector<std::uint64_t> blocked_channels_;     // bit c: a refused request found channel c full
  std::vector<std::deque<DramRequest>> front_end_;  // per channel, trace mode only (see above)
  std::size_t front_end_depth_ = 0;
  std::size_t front_end_count_ = 0;
  bool enqueued_ = false;  // a request was queued since the start of wake()'s current pass
  std::uint64_t activations_ = 0;
  // The time of the wake-up being served (or of a try_submit from outside one), in femtoseconds.
  TimeFs now_fs_ = 0;
  bool sole_process_ = false;
  static constexpr std::uint32_t kStepsPerActivation = 4096;
};

}  // namespace roofsim::dram
