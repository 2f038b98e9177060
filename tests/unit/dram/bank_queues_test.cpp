// The pooled per-bank queues behave as one vector per bank: random pushes and removals anywhere, checked entry by
// entry, with the oldest-entry order, the non-empty mask and the row search.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/dram/bank_queues.h"

namespace roofsim::dram {
namespace {

TEST_CASE("a bank's queue keeps arrival order, removal anywhere closes the gap") {
  BankQueues queues(4);
  for (std::uint64_t i = 0; i < 4; ++i) queues.push(2, BankQueues::Entry{i, 10 + i, i, 1, 0});
  CHECK(queues.nonempty() == 0b100);
  CHECK(queues.size() == 4);
  CHECK(queues.find_row(2, 12) == 2);
  CHECK(queues.find_row(2, 99) == BankQueues::kNone);
  CHECK(queues.take(2, 2).parent == 2);
  CHECK(queues.at(2, 2).parent == 3);
  CHECK(queues.take(2, 0).parent == 0);
  CHECK(queues.front_order(2) == 1);
  CHECK(queues.take(2, 1).parent == 3);
  queues.push(2, BankQueues::Entry{7, 0, 7, 1, 0});
  CHECK(queues.at(2, 1).parent == 7);  // appended after the remaining entry
  CHECK(queues.take(2, 0).parent == 1);
  CHECK(queues.take(2, 0).parent == 7);
  CHECK(queues.nonempty() == 0);
  CHECK(queues.size() == 0);
}

TEST_CASE("random pushes and removals agree with a vector per bank") {
  constexpr std::uint32_t kBanks = 16;
  std::mt19937_64 random(3);
  BankQueues queues(kBanks);
  std::vector<std::vector<BankQueues::Entry>> reference(kBanks);
  std::uint64_t order = 0;
  std::size_t mismatches = 0;
  const auto mismatch = [&](const char* what) {
    if (mismatches++ < 5) MESSAGE(what);
  };
  for (int step = 0; step < 50000; ++step) {
    const auto bank = static_cast<std::uint32_t>(random() % kBanks);
    auto& expected = reference[bank];
    if (random() % 2 == 0 && queues.size() < 64) {
      const BankQueues::Entry entry{random(), random() % 8, order++, 1 + static_cast<std::uint32_t>(random() % 32), 0};
      queues.push(bank, entry);
      expected.push_back(entry);
    } else if (!expected.empty()) {
      const auto index = static_cast<std::uint32_t>(random() % expected.size());
      const auto taken = queues.take(bank, index);
      if (taken.parent != expected[index].parent || taken.order != expected[index].order) mismatch("taken entry");
      expected.erase(expected.begin() + index);
      if (!expected.empty() && random() % 3 == 0) {
        ++queues.front(bank).bypassed;
        ++expected.front().bypassed;
      }
    }
    std::uint64_t nonempty = 0;
    std::uint32_t size = 0;
    for (std::uint32_t b = 0; b < kBanks; ++b) {
      size += static_cast<std::uint32_t>(reference[b].size());
      if (reference[b].empty()) continue;
      nonempty |= std::uint64_t{1} << b;
      if (queues.front_order(b) != reference[b].front().order) mismatch("front order");
    }
    if (queues.nonempty() != nonempty || queues.size() != size) mismatch("mask or size");
    const std::uint64_t row = random() % 8;
    std::uint32_t first_hit = BankQueues::kNone;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i].row == row) {
        first_hit = static_cast<std::uint32_t>(i);
        break;
      }
    }
    if (queues.find_row(bank, row) != first_hit) mismatch("row search");
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const auto& entry = queues.at(bank, static_cast<std::uint32_t>(i));
      if (entry.parent != expected[i].parent || entry.bursts != expected[i].bursts ||
          entry.bypassed != expected[i].bypassed) {
        mismatch("entry");
      }
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace roofsim::dram
