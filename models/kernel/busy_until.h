#pragma once
// A single resource that serves one job at a time in arrival order (a compute unit's engine, a channel of the simple
// DRAM model): a "busy-until" timestamp (DESIGN.md section 1.4). Reserving computes when a job that arrives at
// `arrival` and needs `duration` finishes; nothing ticks in between. Unlike the ports of a level (port_array.h) it
// keeps its own busy time, and the work reserved on it can be re-timed when its clock changes.
#include <algorithm>

#include "models/kernel/time_fs.h"

namespace roofsim {

class BusyUntil {
 public:
  // Returns the finish time of a job arriving at `arrival` that occupies the resource for `duration`.
  TimeFs reserve(TimeFs arrival, TimeFs duration) {
    const TimeFs start = std::max(arrival, free_at_);
    busy_fs_ += duration;
    free_at_ = start + duration;
    return free_at_;
  }

  // The work reserved beyond `now` ends at `new_free_at` instead (its clock changed, compute_clock.h): the busy time
  // follows.
  void retime(TimeFs now, TimeFs new_free_at) {
    if (free_at_ <= now) return;
    busy_fs_ = busy_fs_ - free_at_ + new_free_at;
    free_at_ = new_free_at;
  }

  [[nodiscard]] TimeFs free_at() const { return free_at_; }
  [[nodiscard]] TimeFs busy_fs() const { return busy_fs_; }  // total occupied time

 private:
  TimeFs free_at_ = 0;
  TimeFs busy_fs_ = 0;
};

}  // namespace roofsim
