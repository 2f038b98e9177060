#pragma once
// The DRAM's clock against simulated time in integer femtoseconds (the kernel's resolution, DESIGN.md section 1.8):
// the cycle a time falls in (rounded up) and the time a cycle starts. Both round exactly as the SystemC kernel's
// sc_time does at a resolution of 1 fs (sc_time(seconds, SC_SEC) truncates seconds x 1e15 + 0.5; to_seconds() is
// value x 1e-15), so that the controller's arithmetic needs no sc_time and its results do not move.
#include <cmath>
#include <cstdint>

#include "models/kernel/time_fs.h"

namespace roofsim::dram {

class DramClock {
 public:
  explicit DramClock(double tck_s) : tck_s_(tck_s) {}

  // The first cycle starting at or after `fs` (a time a millionth of a cycle past a cycle start counts as that cycle).
  [[nodiscard]] std::int64_t cycle_at_or_after(TimeFs fs) const {
    return static_cast<std::int64_t>(std::ceil(seconds(fs) / tck_s_ - 1e-6));
  }
  // The start of `cycle` (>= 0) in femtoseconds.
  [[nodiscard]] TimeFs time_fs(std::int64_t cycle) const {
    const double at_s = static_cast<double>(cycle) * tck_s_;
    return at_s == 0 ? 0 : static_cast<TimeFs>(static_cast<std::int64_t>(1e15 * at_s + 0.5));
  }
  // A time in seconds, as sc_time::to_seconds() gives it.
  [[nodiscard]] static double seconds(TimeFs fs) { return static_cast<double>(fs) * 1e-15; }

 private:
  double tck_s_;
};

}  // namespace roofsim::dram
