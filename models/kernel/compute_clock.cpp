#include "models/kernel/compute_clock.h"

#include <cmath>

namespace roofsim {

TimeFs retime_fs(TimeFs finish_fs, TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) {
  if (finish_fs <= now_fs || old_clock_hz == new_clock_hz || new_clock_hz <= 0) return finish_fs;
  const double remaining_fs = static_cast<double>(finish_fs - now_fs) * (old_clock_hz / new_clock_hz);
  return now_fs + static_cast<TimeFs>(std::llround(remaining_fs));
}

}  // namespace roofsim
