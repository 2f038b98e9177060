// WakeTree against a plain list of pending times: under random sets, cancels (kNever) and pops, with clients added
// along the way (the tree regrows), the first client is always the one with the earliest time, ties to the highest
// index, and every client's pending time is what it was last set to.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/kernel/wake_tree.h"

using namespace roofsim;

namespace {

// The earliest pending time, ties to the higher index; kNever and client 0 (whatever its time) when none is pending.
std::pair<TimeFs, std::uint32_t> first_of(const std::vector<TimeFs>& pending) {
  TimeFs at = kNever;
  std::uint32_t client = 0;
  for (std::uint32_t c = 0; c < pending.size(); ++c) {
    if (pending[c] <= at && pending[c] != kNever) {
      at = pending[c];
      client = c;
    }
  }
  return {at, client};
}

}  // namespace

TEST_CASE("a new tree has nothing pending") {
  WakeTree tree;
  CHECK(tree.first_fs() == kNever);
  CHECK(tree.add() == 0);
  CHECK(tree.add() == 1);
  CHECK(tree.size() == 2);
  CHECK(tree.first_fs() == kNever);
  CHECK(tree.pending(1) == kNever);
}

TEST_CASE("equal times come out highest index first") {
  WakeTree tree;
  for (int c = 0; c < 5; ++c) (void)tree.add();
  for (std::uint32_t c : {2U, 0U, 4U, 1U}) tree.set(c, 100);
  std::vector<std::uint32_t> order;
  while (tree.first_fs() == 100) {
    order.push_back(tree.first_client());
    tree.pop_first();
  }
  CHECK(order == std::vector<std::uint32_t>{4, 2, 1, 0});
  CHECK(tree.first_fs() == kNever);
}

TEST_CASE("under random sets, cancels, pops and added clients the tree agrees with a list of pending times") {
  std::mt19937_64 random(21);
  WakeTree tree;
  std::vector<TimeFs> pending;
  for (int i = 0; i < 50000; ++i) {
    const auto action = random() % 100;
    if (pending.size() < 2 || action < 2) {
      if (pending.size() < 70) {
        CHECK(tree.add() == pending.size());
        pending.push_back(kNever);
      }
    } else if (action < 70) {
      const auto client = static_cast<std::uint32_t>(random() % pending.size());
      const TimeFs at = 1000 + random() % 64;  // few distinct times, so that ties are common
      tree.set(client, at);
      pending[client] = at;
    } else if (action < 80) {
      const auto client = static_cast<std::uint32_t>(random() % pending.size());
      tree.set(client, kNever);
      pending[client] = kNever;
    } else if (tree.first_fs() != kNever) {
      pending[tree.first_client()] = kNever;
      tree.pop_first();
    }
    const auto [at, client] = first_of(pending);
    REQUIRE(tree.first_fs() == at);
    if (at != kNever) REQUIRE(tree.first_client() == client);
  }
  for (std::uint32_t c = 0; c < pending.size(); ++c) CHECK(tree.pending(c) == pending[c]);
}
