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
    if (op >= done_.size()) {
      done_.resize(op + 1, 0.0);
      spent_.resize(op + 1, 0.0);
    }
    pending_.push_back(Transfer{PacedAmount{amount, begin_fs, end_fs}, op});
  }

  // Reads what each op spent by `at_fs`; spent() then gives it. Only the ops with a transfer under way, or one done
  // since the last reading, change: a reading costs the transfers in flight, not the ops.
  void read(TimeFs at_fs) {
    for (const std::size_t op : partly_spent_) spent_[op] = done_[op];
    partly_spent_.clear();
    std::size_t kept = 0;
    for (const Transfer& t : pending_) {
      if (t.amount.end_fs <= at_fs) {
        done_[t.op] += t.amount.amount;
        spent_[t.op] = done_[t.op];
      } else {
        pending_[kept++] = t;
      }
    }
    pending_.resize(kept);
    for (const Transfer& t : pending_) {
      spent_[t.op] += t.amount.amount - t.amount.left(at_fs);
      partly_spent_.push_back(t.op);
    }
  }
  // What `op` spent by the last reading.
  [[nodiscard]] double spent(std::size_t op) const { return op < spent_.size() ? spent_[op] : 0.0; }

  // True while a transfer added so far ends after `at_fs`.
  [[nodiscard]] bool busy_after(TimeFs at_fs) const {
    for (const Transfer& t : pending_) {
      if (t.amount.end_fs > at_fs) return true;
    }
    return false;
  }
  // The same for the transfers of `op`.
  [[nodiscard]] bool busy_after(TimeFs at_fs, std::size_t op) const {
    for (const Transfer& t : pending_) {
      if (t.op == op && t.amount.end_fs > at_fs) return true;
    }
    return false;
  }

 private:
  struct Transfer {
    PacedAmount amount;
    std::size_t op = 0;
  };
  std::vector<Transfer> pending_;
  std::vector<double> done_;               // per op: transfers done by the last reading
  std::vector<double> spent_;              // per op: done_ plus the parts of its transfers under way at that reading
  std::vector<std::size_t> partly_spent_;  // the ops whose spent_ holds parts of transfers under way
};

}  // namespace roofsim
