#pragma once
// The dependency structure of a workload as a Boost.Graph DAG: vertices are ops (by index in file order), edges run
// from a producer to a consumer (or from an `after` op). Boost 1.74's topological_sort reports a cycle only as "The
// graph must be a DAG", so cycles are found here with a depth-first search that names the ops on the back edge's
// cycle, and the order is Kahn's algorithm taking the earliest op of the file among the ready ones.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace roofsim {

using DependencyEdge = std::pair<std::size_t, std::size_t>;  // (before, after)

// The ops of one cycle in the order the edges run (a -> b -> ... -> back to a), or nullopt for a DAG.
[[nodiscard]] std::optional<std::vector<std::size_t>> find_cycle(std::size_t op_count,
                                                                 const std::vector<DependencyEdge>& edges);

// Every op after all its predecessors; among ops that are ready at the same time, the one first in the file goes
// first, so the order is deterministic and follows the file wherever the dependencies allow. Requires a DAG.
[[nodiscard]] std::vector<std::size_t> stable_topological_order(std::size_t op_count,
                                                                const std::vector<DependencyEdge>& edges);

}  // namespace roofsim
