#pragma once
// Simulated time inside the policies: integer femtoseconds, the SystemC resolution (DESIGN.md section 1.8), so that
// the policies and the kernel agree exactly and results do not depend on floating-point summation order.
#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/core/units.h"

namespace roofsim {

using TimeFs = std::uint64_t;
inline constexpr TimeFs kNever = std::numeric_limits<TimeFs>::max();

// Rounds a non-negative time in femtoseconds to the nearest one (without llround's cost in the hot path).
[[nodiscard]] inline TimeFs round_fs(double femtoseconds) {
  return static_cast<TimeFs>(femtoseconds + 0.5);
}
[[nodiscard]] inline TimeFs seconds_to_fs(Seconds seconds) {
  return round_fs(seconds * 1e15);
}
[[nodiscard]] inline Seconds fs_to_seconds(TimeFs fs) {
  return static_cast<double>(fs) * 1e-15;
}

// A bandwidth kept as femtoseconds per byte, so that the hot path multiplies rather than divides.
class TransferRate {
 public:
  TransferRate() = default;
  explicit TransferRate(BytesPerSecond rate) : fs_per_byte_(rate > 0 ? 1e15 / rate : 0.0) {}
  // Time to move `bytes`, rounded once to the femtosecond.
  [[nodiscard]] TimeFs time_fs(Bytes bytes) const { return round_fs(static_cast<double>(bytes) * fs_per_byte_); }

 private:
  double fs_per_byte_ = 0;
};

// Time to move `bytes` at `rate` (bytes/s), rounded once to the femtosecond.
[[nodiscard]] inline TimeFs transfer_fs(Bytes bytes, BytesPerSecond rate) {
  return rate <= 0 ? 0 : round_fs(static_cast<double>(bytes) * 1e15 / rate);
}

}  // namespace roofsim
