#pragma once
// The bytes of each op that a DRAM model has scheduled on its channels but not yet transferred, as a power sensor
// sees them: a transfer's energy is spent at an even pace over its burst interval on its channel, not at the instant
// the request was issued. Each channel serves its transfers one after another, so on a channel they form one chain
// in time and those done by a reading leave from the front. Plain C++; the channel model (simple_dram.h) adds its
// reservations once a reader asks for them (track()), and the power domain's reader takes what is still to come off
// the bytes the memory system counted at issue.
#include <cstdint>
#include <deque>
#include <vector>

#include "models/kernel/paced_amount.h"
#include "models/kernel/time_fs.h"
#include "sim/core/units.h"

namespace roofsim {

class InFlightBytes {
 public:
  void track(std::uint32_t channels) { channels_.assign(channels, {}); }
  [[nodiscard]] bool tracking() const { return !channels_.empty(); }

  // `bytes` of `op` move on `channel` over [begin_fs, end_fs), after everything added to that channel before.
  void add(std::uint32_t channel, std::uint32_t op, TimeFs begin_fs, TimeFs end_fs, Bytes bytes) {
    channels_[channel].push_back(Transfer{PacedAmount{static_cast<double>(bytes), begin_fs, end_fs}, op});
  }

  // Adds, per op, the bytes not yet transferred at `at_fs` into `per_op` (sized by the caller, by op index) and
  // forgets the transfers done by then: readings come in time order.
  void add_unfinished(TimeFs at_fs, std::vector<double>& per_op) {
    for (auto& chain : channels_) {
      while (!chain.empty() && chain.front().bytes.end_fs <= at_fs) chain.pop_front();
      for (const Transfer& t : chain) {
        if (t.op < per_op.size()) per_op[t.op] += t.bytes.left(at_fs);
      }
    }
  }

 private:
  struct Transfer {
    PacedAmount bytes;
    std::uint32_t op = 0;
  };
  std::vector<std::deque<Transfer>> channels_;
};

}  // namespace roofsim
