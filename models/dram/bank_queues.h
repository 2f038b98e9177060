#pragma once
// The queued request parts of one direction (reads or writes) of a DRAM channel: per bank, in arrival order, with
// removal anywhere (FR-FCFS serves a bank's oldest row hit). Plain C++, used by DramChannel.
//
// Every entry lives in one pool shared by the banks (a bank's queue is a list through it), and the order of each
// bank's first entry sits in one dense array: finding the oldest request reads that array, not one queue per bank.
// 160 HBM3 pseudo-channels are served in turn, so a channel's state is cold at each decision; one small pool and a
// few dense arrays are fewer cache lines than a vector per bank (its header, then its entries).
#include <cstdint>
#include <vector>

namespace roofsim::dram {

class BankQueues {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  struct Entry {
    std::uint64_t parent = 0;  // the caller's request id
    std::uint64_t row = 0;
    std::uint64_t order = 0;  // arrival order in the channel (smaller = older)
    std::uint32_t bursts = 1;
    std::uint32_t bypassed = 0;  // times the scheduler served a younger request while this was the oldest
  };

  explicit BankQueues(std::uint32_t banks);

  // Appends `entry` to `bank`'s queue.
  void push(std::uint32_t bank, const Entry& entry);
  // Removes and returns the entry at `index` of `bank`'s queue (0: its oldest).
  Entry take(std::uint32_t bank, std::uint32_t index);

  [[nodiscard]] std::uint32_t size() const { return size_; }
  // Bit b: bank b has queued entries.
  [[nodiscard]] std::uint64_t nonempty() const { return nonempty_; }
  // The order of `bank`'s oldest entry (the bank has one).
  [[nodiscard]] std::uint64_t front_order(std::uint32_t bank) const { return front_order_[bank]; }
  [[nodiscard]] Entry& front(std::uint32_t bank) { return pool_[head_[bank]].entry; }
  [[nodiscard]] const Entry& at(std::uint32_t bank, std::uint32_t index) const;
  // The index of `bank`'s oldest entry of `row`, or kNone.
  [[nodiscard]] std::uint32_t find_row(std::uint32_t bank, std::uint64_t row) const;
  // How many of `bank`'s entries are of `row`.
  [[nodiscard]] std::uint32_t count_row(std::uint32_t bank, std::uint64_t row) const;

 private:
  struct Slot {
    Entry entry;
    std::uint32_t next = kNone;  // the bank's next entry, or the next free slot
  };
  std::vector<Slot> pool_;
  std::vector<std::uint32_t> head_, tail_;  // per bank (kNone: empty)
  std::vector<std::uint64_t> front_order_;  // per bank: pool_[head_[bank]].entry.order
  std::uint32_t free_ = kNone;
  std::uint32_t size_ = 0;
  std::uint64_t nonempty_ = 0;
};

}  // namespace roofsim::dram
