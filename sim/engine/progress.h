#pragma once
// Progress of a long simulation on stderr: once a run has taken kProgressAfterWallS of wall time, a line every
// kProgressEveryWallS with the ops done, the simulated time reached and the wall time left, estimated from the share
// of the workload's FLOPs (and, for ops without FLOPs, of its ops) done so far. Plain C++: the caller feeds it.
#include <cstdint>
#include <ostream>
#include <string>

#include "sim/core/units.h"

namespace roofsim {

inline constexpr double kProgressAfterWallS = 2.0;
inline constexpr double kProgressEveryWallS = 2.0;

class ProgressReport {
 public:
  ProgressReport(std::uint64_t total_ops, Flops total_flops, std::ostream* out)
      : total_ops_(total_ops), total_flops_(total_flops), out_(out) {}

  // The line to print at `wall_s`, or "" when none is due (too early, too soon after the last, or no output).
  [[nodiscard]] std::string update(std::uint64_t done_ops, Flops done_flops, Seconds sim_time_s, Seconds wall_s);
  // Prints the line update() returns, if any.
  void report(std::uint64_t done_ops, Flops done_flops, Seconds sim_time_s, Seconds wall_s) {
    const auto line = update(done_ops, done_flops, sim_time_s, wall_s);
    if (!line.empty() && out_ != nullptr) *out_ << line << std::flush;
  }

 private:
  std::uint64_t total_ops_;
  Flops total_flops_;
  std::ostream* out_;
  double last_wall_s_ = -1;
};

}  // namespace roofsim
