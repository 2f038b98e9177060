// The synchronisation of collectives across ranks and classes of symmetric ranks (sim/engine/collective_sync.h).
#include <doctest/doctest.h>

#include "sim/engine/cluster_run.h"
#include "sim/engine/collective_sync.h"

using namespace roofsim;

TEST_CASE("a group collective is ready when its last member arrives and a communicator runs one at a time") {
  // 4 ranks, each its own class; op 0 and op 1 are allreduces over all 4, op 2 is not a collective.
  CollectiveSync sync(4, rank_classes(4, false), std::vector<GroupLayout>{{4}, {4}, {0}});
  std::vector<GroupCollective> ready;
  for (std::size_t r = 0; r < 3; ++r) CHECK(sync.reached(r, 0, ready).empty());
  CHECK(ready.empty());
  const auto first = sync.reached(3, 0, ready);
  REQUIRE(first.size() == 1);
  CHECK(ready.size() == 1);
  // Op 1 becomes ready while op 0 runs: it waits for the communicator.
  ready.clear();
  for (std::size_t r = 0; r < 4; ++r) CHECK(sync.reached(r, 1, ready).empty());
  CHECK(ready.size() == 1);
  std::vector<std::size_t> completed;
  const auto next = sync.finished(first.front(), completed);
  CHECK(completed.size() == 4);
  REQUIRE(next.size() == 1);
  CHECK(next.front().op == 1);
  CHECK_FALSE(sync.idle());
  completed.clear();
  CHECK(sync.finished(next.front(), completed).empty());
  CHECK(sync.idle());
}

TEST_CASE("groups of 2 among 4 ranks run independently and a collapsed class waits for all its groups") {
  CollectiveSync sync(4, rank_classes(4, true), std::vector<GroupLayout>{{2}});
  std::vector<GroupCollective> ready;
  const auto issued = sync.reached(0, 0, ready);
  REQUIRE(issued.size() == 2);  // both groups, on their own communicators
  std::vector<std::size_t> completed;
  CHECK(sync.finished(issued[0], completed).empty());
  CHECK(completed.empty());  // the class still waits for the other group
  CHECK(sync.finished(issued[1], completed).empty());
  CHECK(completed == std::vector<std::size_t>{0});
}

TEST_CASE("union_length measures overlapping intervals once") {
  CHECK(union_length({{0, 2}, {1, 3}, {5, 6}}) == 4);
  CHECK(union_length({{0, 10}, {2, 3}}) == 10);
  CHECK(union_length({}) == 0);
}
