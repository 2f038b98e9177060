#include "sim/graph/dag.h"

#include <algorithm>
#include <functional>
#include <queue>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

namespace roofsim {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

Graph make_graph(std::size_t op_count, const std::vector<DependencyEdge>& edges) {
  Graph graph(op_count);
  for (const auto& [from, to] : edges) boost::add_edge(from, to, graph);
  return graph;
}

struct CycleFound {
  std::vector<std::size_t> ops;
};

// Remembers the DFS tree; a back edge u -> v closes the cycle v -> ... -> u -> v along tree edges.
class CycleVisitor : public boost::default_dfs_visitor {
 public:
  explicit CycleVisitor(std::vector<Vertex>& parent) : parent_(&parent) {}

  void tree_edge(Edge edge, const Graph& graph) const {
    (*parent_)[boost::target(edge, graph)] = boost::source(edge, graph);
  }

  void back_edge(Edge edge, const Graph& graph) const {
    const Vertex from = boost::source(edge, graph);
    const Vertex to = boost::target(edge, graph);
    std::vector<std::size_t> cycle = {from};
    for (Vertex v = from; v != to; v = (*parent_)[v]) cycle.push_back((*parent_)[v]);
    std::reverse(cycle.begin(), cycle.end());
    throw CycleFound{cycle};
  }

 private:
  std::vector<Vertex>* parent_;
};

}  // namespace

std::optional<std::vector<std::size_t>> find_cycle(std::size_t op_count, const std::vector<DependencyEdge>& edges) {
  const Graph graph = make_graph(op_count, edges);
  std::vector<Vertex> parent(op_count);
  for (std::size_t i = 0; i < op_count; ++i) parent[i] = i;
  std::vector<boost::default_color_type> colors(op_count);
  try {
    boost::depth_first_search(graph, boost::visitor(CycleVisitor(parent))
                                         .color_map(boost::make_iterator_property_map(
                                             colors.begin(), boost::get(boost::vertex_index, graph))));
  } catch (const CycleFound& found) {
    return found.ops;
  }
  return std::nullopt;
}

std::vector<std::size_t> stable_topological_order(std::size_t op_count, const std::vector<DependencyEdge>& edges) {
  const Graph graph = make_graph(op_count, edges);
  std::vector<std::size_t> waiting(op_count);
  for (std::size_t v = 0; v < op_count; ++v) waiting[v] = boost::in_degree(v, graph);
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t v = 0; v < op_count; ++v) {
    if (waiting[v] == 0) ready.push(v);
  }
  std::vector<std::size_t> order;
  order.reserve(op_count);
  while (!ready.empty()) {
    const std::size_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, graph); it != end; ++it) {
      const std::size_t next = boost::target(*it, graph);
      if (--waiting[next] == 0) ready.push(next);
    }
  }
  return order;
}

}  // namespace roofsim
