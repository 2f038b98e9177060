#pragma once
// Amounts of each op spent at an even pace over intervals that become known one by one, as a link direction takes a
// message (its reservation, from the first packet's start to the last one's end): what a power sensor would see of
// a transfer's link energy. Plain C++. Readings come in time order; a transfer done by a reading is folded into its
// op's total and forgotten.
#include <cstddef>
#include <vector>

#include "models/kernel/paced_amount.h"
#include "models/kernel/time_fs.h"

namespace roofsim {

class PacedTransfers {
 public:
  // `amount` of `op` spent over [begin_fs, end_fs) (a transfer of no duration is spent at `end_fs`).
  void add(std::size_t op, TimeFs begin_fs, TimeFs end_fs, double amount) {
    if (op >= done_.size()) done_.resize(op + 1, 0.0);
    pending_.push_back(Transfer{PacedAmount{amount, begin_fs, end_fs}, op});
  }

  // Sets per_op[op] (sized by the caller, by op index) to what each op spent by `at_fs`.
  void spent_by(TimeFs at_fs, std::vector<double>& per_op) {
    std::size_t kept = 0;
    for (const Transfer& t : pending_) {
      if (t.amount.end_fs <= at_fs) {
        done_[t.op] += t.amount.amount;
      } else {
        pending_[kept++] = t;
      }
    }
    pending_.resize(kept);
    for (std::size_t op = 0; op < per_op.size(); ++op) per_op[op] = op < done_.size() ? done_[op] : 0.0;
    for (const Transfer& t : pending_) {
      if (t.op < per_op.size()) per_op[t.op] += t.amount.amount - t.amount.left(at_fs);
    }
  }

  // True while a transfer added so far ends after `at_fs`.
  [[nodiscard]] bool busy_after(TimeFs at_fs) const {
    for (const Transfer& t : pending_) {
      if (t.amount.end_fs > at_fs) return true;
    }
    return false;
  }

 private:
  struct Transfer {
    PacedAmount amount;
    std::size_t op = 0;
  };
  std::vector<Transfer> pending_;
  std::vector<double> done_;  // per op: transfers done by the last reading
};

}  // namespace roofsim
