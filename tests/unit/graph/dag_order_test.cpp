// The DAG policy on its own: cycles found by DFS back edges with the ops in edge order, and Kahn's order taking the
// earliest op of the file among the ready ones.
#include <doctest/doctest.h>

#include "sim/graph/dag.h"

using namespace roofsim;

TEST_CASE("a DAG has no cycle and its order follows the file where the edges allow") {
  // 0 -> 3, 2 -> 1: the file order 0 1 2 3 becomes 0 2 1 3.
  const std::vector<DependencyEdge> edges = {{0, 3}, {2, 1}};
  CHECK_FALSE(find_cycle(4, edges));
  CHECK(stable_topological_order(4, edges) == std::vector<std::size_t>{0, 2, 1, 3});
  CHECK(stable_topological_order(3, {}) == std::vector<std::size_t>{0, 1, 2});
  // A diamond with a late root: 3 -> {1, 2} -> 0.
  CHECK(stable_topological_order(4, {{3, 1}, {3, 2}, {1, 0}, {2, 0}}) == std::vector<std::size_t>{3, 1, 2, 0});
}

TEST_CASE("a cycle is reported with its ops in the direction of the edges") {
  // 0 -> 1 -> 2 -> 3 -> 1, and 4 hangs off 2.
  const auto cycle = find_cycle(5, {{0, 1}, {1, 2}, {2, 4}, {2, 3}, {3, 1}});
  REQUIRE(cycle);
  CHECK(*cycle == std::vector<std::size_t>{1, 2, 3});
  const auto self = find_cycle(2, {{0, 1}, {1, 1}});
  REQUIRE(self);
  CHECK(*self == std::vector<std::size_t>{1});
  // Parallel edges are not a cycle.
  CHECK_FALSE(find_cycle(2, {{0, 1}, {0, 1}}));
}
