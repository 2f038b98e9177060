#pragma once
// One device's wake-ups: the compute units, the dispatcher and the detailed DRAM are called directly, in an order
// that depends on the device alone, from one SystemC process that owns one kernel event.
//
// Why an order of our own: SystemC runs the processes whose timed notifications fall on the same instant in the
// order its event queue pops them; that queue is a binary heap compared on time only (sc_ppq in sc_simcontext), so
// the order among equal times depends on every event pending in the kernel. Two compute units of a device that wake
// at the same femtosecond and reserve the same L2 bank or DRAM channel would then be served in an order that changes
// when other devices share the kernel, and a rank's compute time would depend on how many ranks a cluster run
// simulates.
//
// Why direct calls: a client is a Wakeable with a fixed index (its order of registration at elaboration); the
// scheduler keeps one pending time per client (wake_tree.h) and at each instant calls the due clients' wake_now()
// directly. That is one kernel event and one activation per instant, however many clients are due, where an event
// per client would cost a timed kernel event, a delta notification and a process activation per wake-up.
//
// The order is the one the clients' own processes would run in if a release process delta-notified their events in
// index order, because SystemC triggers a delta cycle's notifications last first (sc_simcontext::crunch): due
// clients run in descending index order (the DRAM, the dispatcher, then the units from the last). The rounds keep
// those delta cycles too: a client asked for "now" while a round runs (the dispatcher when a tile ends, the DRAM when
// a unit submits) runs in the next round, one delta cycle later, the last asked first, even if it also runs in this
// round, as its own event's delta notification would run it. A request from outside a round (the network, the DRAM's
// retry process, the dispatcher's first activation) starts a round one delta later. Round 0 of an instant runs in the
// delta its timed notification fires if nothing else is pending at that instant; otherwise (the power governor, the
// network or another device woke at the same femtosecond) it runs one delta later, after those: the clients never
// see another process's same-instant work in an order the kernel's heap chose.
//
// What the scheduler knows also tells when the device is idle: no client runs before next_due_fs() unless something
// outside the device asks (the network completing a collective). The power governor sleeps through such stretches
// instead of waking every window, and watch() tells it when a request comes earlier than it planned to wake.
//
// WakeHandle is what a client owns: without a scheduler attached (a module used alone: `roofsim dram`, component
// tests) it notifies the client's own event, whose process calls the same function.
#include <systemc>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/kernel/time_fs.h"
#include "models/kernel/wake_tree.h"

namespace roofsim {

class Wakeable {
 public:
  // The client's work at the current instant (its process body).
  virtual void wake_now() = 0;

 protected:
  ~Wakeable() = default;
};

// Told of a request that makes a client due earlier than a watcher's planned wake (DeviceScheduler::watch).
class WakeWatcher {
 public:
  // A client was asked to run at `at_fs` (not before now); called from inside the request, before any client runs.
  virtual void wake_asked(TimeFs at_fs) = 0;

 protected:
  ~WakeWatcher() = default;
};

class DeviceScheduler : public sc_core::sc_module {
 public:
  explicit DeviceScheduler(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
    SC_HAS_PROCESS(DeviceScheduler);
    SC_METHOD(run);
    sensitive << tick_;
    dont_initialize();
  }

  // Runs of its process (kernel activations), for benchmarks.
  [[nodiscard]] std::uint64_t activations() const { return activations_; }

  // A client: its index fixes its place among the wake-ups of one instant (the higher first).
  [[nodiscard]] std::uint32_t add(Wakeable& client) {
    clients_.push_back(&client);
    asked_flag_.push_back(0);
    return pending_.add();
  }

  // Wakes `client` at `at_fs` unless it is due no later already (as sc_event::notify does); at or before now: in the
  // next round of this instant (see above).
  void notify_at(std::uint32_t client, TimeFs at_fs) {
    const TimeFs now = in_run_ ? now_ : now_fs();
    if (at_fs < watch_before_fs_) tell_watcher(std::max(at_fs, now));
    if (at_fs > now) {
      if (pending_.pending(client) <= at_fs) return;
      pending_.set(client, at_fs);
      if (!in_run_ && !delta_armed_ && at_fs < armed_fs_) {
        tick_.cancel();
        tick_.notify(sc_core::sc_time::from_value(at_fs - now));
        armed_fs_ = at_fs;
      }
      return;
    }
    if (asked_flag_[client]) return;                                       // asked for the next round already
    if (pending_.pending(client) != kNever) pending_.set(client, kNever);  // a delta notification replaces a timed one
    asked_flag_[client] = 1;
    asked_.push_back(client);
    if (!in_run_ && !delta_armed_) {
      // A timed notification for a later instant is replaced; one that fired at this instant (armed_fs_ == now) has
      // its activation still to come and keeps it.
      if (armed_fs_ != now) {
        tick_.cancel();
        armed_fs_ = kNever;
      }
      tick_.notify(sc_core::SC_ZERO_TIME);
      delta_armed_ = true;
    }
  }

  // The earliest instant a client is due: now when a round is asked for (or fired and not yet run), kNever when none
  // is pending. Until then no client runs unless a request comes from outside the device.
  [[nodiscard]] TimeFs next_due_fs() const {
    if (delta_armed_ || !asked_.empty()) return now_fs();
    return std::min(armed_fs_, pending_.first_fs());
  }

  // Calls `watcher.wake_asked()` once, at the first request for a wake-up before `before_fs` (kNever: any request),
  // then forgets it. One watcher at a time; unwatch() forgets it without a call.
  void watch(WakeWatcher& watcher, TimeFs before_fs) {
    watcher_ = &watcher;
    watch_before_fs_ = before_fs;
  }
  void unwatch() {
    watcher_ = nullptr;
    watch_before_fs_ = 0;
  }

  // Activity of the device that no client runs (a transfer on its links, which the network times) starts at `at_fs`:
  // the watcher hears of it as of a request, so that it does not sleep through it.
  void outside_activity(TimeFs at_fs) {
    if (at_fs < watch_before_fs_) tell_watcher(std::max(at_fs, in_run_ ? now_ : now_fs()));
  }

  // Drops the client's pending wake-up, timed or for the next round (not a run in the current round: a triggered
  // process ran too).
  void cancel(std::uint32_t client) {
    if (pending_.pending(client) != kNever) pending_.set(client, kNever);
    asked_flag_[client] = 0;
  }

 private:
  [[nodiscard]] static TimeFs now_fs() { return sc_core::sc_time_stamp().value(); }

  void tell_watcher(TimeFs at_fs) {
    WakeWatcher* const watcher = watcher_;
    unwatch();
    watcher->wake_asked(at_fs);
  }

  void run() {
    ++activations_;
    const TimeFs now = now_fs();
    const bool timed = armed_fs_ == now;
    if (timed) armed_fs_ = kNever;
    if (timed && sc_core::sc_pending_activity_at_current_time()) {
      // Another process (or our own request from outside) is due at this instant: run after it, one delta later.
      if (!delta_armed_) {
        tick_.notify(sc_core::SC_ZERO_TIME);
        delta_armed_ = true;
      }
      return;
    }
    if (!timed) delta_armed_ = false;
    in_run_ = true;
    now_ = now;
    // This round: the clients asked for now, the last asked first, then those due by time, the highest index first.
    round_.clear();
    for (auto it = asked_.rbegin(); it != asked_.rend(); ++it) {
      if (!asked_flag_[*it]) continue;  // cancelled
      asked_flag_[*it] = 0;
      round_.push_back(*it);
    }
    asked_.clear();
    while (pending_.first_fs() <= now) {
      round_.push_back(pending_.first_client());
      pending_.pop_first();
    }
    for (const std::uint32_t client : round_) clients_[client]->wake_now();
    in_run_ = false;
    if (!asked_.empty()) {
      tick_.notify(sc_core::SC_ZERO_TIME);
      delta_armed_ = true;
    } else if (pending_.first_fs() != kNever) {
      armed_fs_ = pending_.first_fs();
      tick_.notify(sc_core::sc_time::from_value(armed_fs_ - now));
    }
  }

  std::vector<Wakeable*> clients_;
  std::vector<std::uint8_t> asked_flag_;  // per client: in asked_ (bytes: a bit vector costs a shift and a mask)
  WakeTree pending_;                      // per client: its timed wake-up
  std::vector<std::uint32_t> round_;      // the round being run
  std::vector<std::uint32_t> asked_;      // asked for now: the next round, in the order asked
  sc_core::sc_event tick_;
  TimeFs armed_fs_ = kNever;  // the instant of tick_'s timed notification (pending, or fired and not yet run)
  bool delta_armed_ = false;  // tick_ has a delta notification pending
  bool in_run_ = false;
  TimeFs now_ = 0;  // the instant of the round being run
  std::uint64_t activations_ = 0;
  WakeWatcher* watcher_ = nullptr;
  TimeFs watch_before_fs_ = 0;  // 0: nobody watches (no request is earlier)
};

// A client's wake-up: through the device's scheduler once attached, else through the client's own event (whose
// process calls the same function as Wakeable::wake_now).
class WakeHandle {
 public:
  explicit WakeHandle(sc_core::sc_event& event) : event_(event) {}
  void attach(DeviceScheduler& scheduler, Wakeable& client) {
    scheduler_ = &scheduler;
    client_ = scheduler.add(client);
  }
  // Wakes the client at `at_fs` (now: one delta later), unless it is due no later already.
  void notify_at(TimeFs at_fs) {
    if (scheduler_ != nullptr) {
      scheduler_->notify_at(client_, at_fs);
      return;
    }
    const TimeFs now = sc_core::sc_time_stamp().value();
    event_.notify(at_fs <= now ? sc_core::SC_ZERO_TIME : sc_core::sc_time::from_value(at_fs - now));
  }
  void cancel() {
    if (scheduler_ != nullptr) {
      scheduler_->cancel(client_);
      return;
    }
    event_.cancel();
  }

 private:
  sc_core::sc_event& event_;
  DeviceScheduler* scheduler_ = nullptr;
  std::uint32_t client_ = 0;
};

}  // namespace roofsim
