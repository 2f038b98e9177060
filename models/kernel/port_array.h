#pragma once
// The ports of one SRAM level (DESIGN.md section 1.4): one per unit for a unit-scope level, one per bank for a device
// level. Each port serves its transfers in arrival order, so a port is a free time; reserving computes when a transfer
// that arrives at `now` and needs `duration` finishes, and nothing ticks in between. Only the level's total busy time
// is kept (the reports read a level's port utilization, not a port's), so that a run of banks costs one add.
//
// Free times are signed: times stay below 2^63 fs (2.5 hours), where signed and unsigned arithmetic agree, and the
// vector units compare signed 64-bit integers (reserve_run below).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

// Reserves `n` consecutive ports from `free_fs` for `duration` each, all arriving at `now`; returns the latest finish
// (`now` when n is 0). One loop the compiler vectorizes; an AVX2 clone does four ports per instruction where the host
// has it, with the same integer results.
[[nodiscard]] std::int64_t reserve_port_run(std::int64_t* free_fs, std::uint64_t n, std::int64_t now,
                                            std::int64_t duration);

class PortArray {
 public:
  explicit PortArray(std::size_t ports = 0) : free_fs_(ports, 0) {}

  [[nodiscard]] std::size_t size() const { return free_fs_.size(); }

  // Port `port` takes a transfer arriving at `now` for `duration`: returns when it finishes.
  TimeFs reserve(std::size_t port, TimeFs now, TimeFs duration) {
    const std::int64_t finish =
        std::max(static_cast<std::int64_t>(now), free_fs_[port]) + static_cast<std::int64_t>(duration);
    free_fs_[port] = finish;
    busy_fs_ += duration;
    return static_cast<TimeFs>(finish);
  }

  // Ports first .. first + n - 1 each take a transfer arriving at `now` for `duration` (a run of lines spread over
  // consecutive banks): returns the latest finish, at least `now`.
  TimeFs reserve_run(std::size_t first, std::size_t n, TimeFs now, TimeFs duration) {
    busy_fs_ += static_cast<TimeFs>(n) * duration;
    return static_cast<TimeFs>(reserve_port_run(free_fs_.data() + first, n, static_cast<std::int64_t>(now),
                                                static_cast<std::int64_t>(duration)));
  }

  [[nodiscard]] TimeFs free_fs(std::size_t port) const { return static_cast<TimeFs>(free_fs_[port]); }
  // Total time reserved, summed over the ports.
  [[nodiscard]] TimeFs busy_fs() const { return busy_fs_; }

 private:
  std::vector<std::int64_t> free_fs_;
  TimeFs busy_fs_ = 0;
};

}  // namespace roofsim
