#pragma once
// Timed wake-ups of one device's processes, released in an order that depends on the device alone.
//
// Why: SystemC runs the processes whose timed notifications fall on the same instant in the order its event queue
// pops them; that queue is a binary heap compared on time only (sc_ppq in sc_simcontext), so the order among equal
// times depends on every event pending in the kernel. Two compute units of a device that wake at the same femtosecond
// and reserve the same L2 bank or DRAM channel were therefore served in an order that changed when other devices
// shared the kernel, and a rank's compute time depended on how many ranks a cluster run simulated (issue 10: 2.3e-3
// apart at 16 ranks with the detailed DRAM). A device's processes route their timed wake-ups through one
// OrderedWakeups: it holds a single kernel event, and at each instant delta-notifies its due clients' events in
// client order (the order of registration at elaboration). The kernel runs one delta's notifications in an order
// fixed by the sequence of notify calls, so the clients run one delta later in an order that depends on the device
// alone.
//
// WakeHandle is what a process owns: without an OrderedWakeups attached (a module used alone, `roofsim dram`) it
// notifies its event directly, as before.
#include <systemc>

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "models/memory/time_fs.h"

namespace roofsim {

class OrderedWakeups : public sc_core::sc_module {
 public:
  explicit OrderedWakeups(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
    SC_HAS_PROCESS(OrderedWakeups);
    SC_METHOD(release);
    sensitive << tick_;
    dont_initialize();
  }

  // A client: its index fixes its place among wake-ups of the same instant.
  [[nodiscard]] std::uint32_t add(sc_core::sc_event& event) {
    events_.push_back(&event);
    pending_.push_back(kNever);
    return static_cast<std::uint32_t>(events_.size() - 1);
  }

  // Wakes `client` at `at_fs` (now or later) unless it is already due no later, as sc_event::notify does.
  void notify_at(std::uint32_t client, TimeFs at_fs) {
    const TimeFs now = now_fs();
    if (at_fs <= now) {
      pending_[client] = kNever;
      events_[client]->notify(sc_core::SC_ZERO_TIME);
      return;
    }
    if (pending_[client] <= at_fs) return;
    pending_[client] = at_fs;
    queue_.push(Entry{at_fs, client});
    if (at_fs < armed_fs_) {
      tick_.cancel();
      tick_.notify(sc_core::sc_time::from_value(at_fs - now));
      armed_fs_ = at_fs;
    }
  }

  void cancel(std::uint32_t client) { pending_[client] = kNever; }

 private:
  struct Entry {
    TimeFs at_fs;
    std::uint32_t client;
    bool operator>(const Entry& other) const {
      return at_fs != other.at_fs ? at_fs > other.at_fs : client > other.client;
    }
  };

  [[nodiscard]] static TimeFs now_fs() { return sc_core::sc_time_stamp().value(); }

  void release() {
    const TimeFs now = now_fs();
    armed_fs_ = kNever;
    while (!queue_.empty() && queue_.top().at_fs <= now) {
      const Entry entry = queue_.top();
      queue_.pop();
      if (pending_[entry.client] != entry.at_fs) continue;  // cancelled or moved earlier
      pending_[entry.client] = kNever;
      events_[entry.client]->notify(sc_core::SC_ZERO_TIME);
    }
    while (!queue_.empty() && pending_[queue_.top().client] != queue_.top().at_fs) queue_.pop();
    if (!queue_.empty()) {
      armed_fs_ = queue_.top().at_fs;
      tick_.notify(sc_core::sc_time::from_value(armed_fs_ - now));
    }
  }

  std::vector<sc_core::sc_event*> events_;
  std::vector<TimeFs> pending_;  // per client: the time it is due, kNever when none
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  sc_core::sc_event tick_;
  TimeFs armed_fs_ = kNever;
};

// A process's wake-up event, ordered by the device's OrderedWakeups once attached.
class WakeHandle {
 public:
  explicit WakeHandle(sc_core::sc_event& event) : event_(event) {}
  void attach(OrderedWakeups& order) {
    order_ = &order;
    client_ = order.add(event_);
  }
  // Wakes the process at `at_fs` (now: one delta later), unless it is due no later already.
  void notify_at(TimeFs at_fs) {
    if (order_ != nullptr) {
      order_->notify_at(client_, at_fs);
      return;
    }
    const TimeFs now = sc_core::sc_time_stamp().value();
    event_.notify(at_fs <= now ? sc_core::SC_ZERO_TIME : sc_core::sc_time::from_value(at_fs - now));
  }
  void cancel() {
    if (order_ != nullptr) order_->cancel(client_);
    event_.cancel();
  }

 private:
  sc_core::sc_event& event_;
  OrderedWakeups* order_ = nullptr;
  std::uint32_t client_ = 0;
};

}  // namespace roofsim
