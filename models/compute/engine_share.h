#pragma once
// How the tiles resident on one unit share one of its engines (DESIGN.md section 4): the engine computes one k-step
// at a time at its full rate, in the order the steps become ready. k resident tiles thus each progress at 1/k of the
// peak on average and the unit never exceeds its peak, while a lone tile runs at the full rate.
#include <cmath>

#include "models/kernel/busy_until.h"
#include "sim/core/units.h"

namespace roofsim {

class EngineShare {
 public:
  // Time of `flops` at `rate` FLOP/s, rounded once.
  [[nodiscard]] static TimeFs step_fs(Flops flops, FlopsPerSecond rate) {
    return rate <= 0 ? 0 : round_fs(static_cast<double>(flops) * 1e15 / rate);
  }
  // A step taking `duration` whose operands are ready at `ready`: returns when it finishes.
  TimeFs run(TimeFs ready, TimeFs duration) { return engine_.reserve(ready, duration); }
  // The steps reserved beyond `now` end at `new_free_at` instead (the unit's clock changed).
  void retime(TimeFs now, TimeFs new_free_at) { engine_.retime(now, new_free_at); }
  [[nodiscard]] TimeFs busy_fs() const { return engine_.busy_fs(); }
  [[nodiscard]] TimeFs free_at() const { return engine_.free_at(); }

 private:
  BusyUntil engine_;
};

}  // namespace roofsim
