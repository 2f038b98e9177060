#pragma once
// Work as a power sensor sees it spent: an amount issued at once (a step's FLOPs, a phase's lane operations, a DRAM
// transfer's bytes, a replayed op's counters) is done at an even pace over the interval the hardware spends on it,
// so a governor window that cuts the interval sees its share rather than a lump at the issue.
#include "models/kernel/time_fs.h"

namespace roofsim {

// `amount` spent at an even pace over [begin_fs, end_fs).
struct PacedAmount {
  double amount = 0;
  TimeFs begin_fs = 0;
  TimeFs end_fs = 0;

  // The part still to come at `at_fs`.
  [[nodiscard]] double left(TimeFs at_fs) const {
    if (amount == 0 || end_fs <= at_fs) return 0.0;
    if (at_fs <= begin_fs) return amount;
    return amount * static_cast<double>(end_fs - at_fs) / static_cast<double>(end_fs - begin_fs);
  }

  // The clock changed at `now_fs` and `warp` maps a time after it to its re-timed value: the part left at `now_fs`
  // is spent over the re-timed rest of the interval.
  template <class Warp>
  void retime(TimeFs now_fs, const Warp& warp) {
    if (amount == 0 || end_fs <= now_fs) return;
    if (begin_fs < now_fs) {
      amount *= static_cast<double>(end_fs - now_fs) / static_cast<double>(end_fs - begin_fs);
      begin_fs = now_fs;
    } else {
      begin_fs = warp(begin_fs);
    }
    end_fs = warp(end_fs);
  }
};

}  // namespace roofsim
