#pragma once
// The cluster as a Boost.Graph graph: devices, switches and NICs are vertices; every physical link is two directed
// edges, one per direction, because each direction is its own resource (full duplex). Routes are shortest paths in
// hops; among equal-length next hops the choice is destination mod count ("d-mod-k", the deterministic fat-tree
// routing of Zahavi et al., "Optimized InfiniBand fat-tree routing for shift all-to-all communication patterns",
// CCPE 2010), which spreads flows over spines the way OpenSM's ftree routing does, and is reproducible.
#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/net/net_params.h"

namespace roofsim::net {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;  // one direction of one physical link

enum class NodeKind { device, switch_node, nic };

struct DirectedLink {
  NodeId from = 0;
  NodeId to = 0;
  LinkParams params;
  std::string_view kind;  // "link", "host_link", "nic_link", "fabric_link": which cluster section it came from
};

class Topology {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_index_t, LinkId>>;

  explicit Topology(const TopologyParams& cluster);

  // Devices are vertices 0..devices-1, in the cluster's natural order (torus: first dimension fastest; two_level:
  // device d of node n is n * devices_per_node + d).
  [[nodiscard]] std::uint32_t devices() const { return devices_; }
  [[nodiscard]] std::size_t node_count() const { return kinds_.size(); }
  [[nodiscard]] NodeKind node_kind(NodeId node) const { return kinds_[node]; }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] const DirectedLink& link(LinkId id) const { return links_[id]; }
  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] TopologyKind kind() const { return kind_; }

  // The links of the shortest path from one vertex to another (empty when from == to); computed once, then cached.
  [[nodiscard]] const std::vector<LinkId>& route(NodeId from, NodeId to) const;

  // Devices in an order where consecutive devices are near: the natural order, except a torus, walked as a snake
  // (boustrophedon) so that every ring step is one hop.
  [[nodiscard]] std::vector<NodeId> ring_order() const;
  // Sizes of the levels of hierarchical collectives, fastest first (product = devices): the torus dimensions, or
  // devices per node and nodes; a single level otherwise.
  [[nodiscard]] std::vector<std::uint64_t> levels() const { return levels_; }
  // The crossbar of a switch topology that reduces in the switch, or none.
  [[nodiscard]] bool in_switch_reduction() const { return in_switch_reduction_; }
  [[nodiscard]] NodeId switch_node() const { return switch_node_; }
  [[nodiscard]] std::uint64_t nics_per_node() const { return nics_per_node_; }

 private:
  NodeId add_node(NodeKind kind);
  void connect(NodeId a, NodeId b, const LinkParams& params, std::string_view kind);
  [[nodiscard]] const std::vector<std::uint32_t>& hops_to(NodeId destination) const;

  TopologyKind kind_;
  std::uint32_t devices_ = 0;
  std::vector<NodeKind> kinds_;
  std::vector<DirectedLink> links_;
  std::vector<std::vector<std::pair<NodeId, LinkId>>> out_;  // per vertex, in insertion order
  Graph graph_;
  std::vector<std::uint64_t> levels_;
  std::vector<std::uint64_t> dims_;
  bool in_switch_reduction_ = false;
  NodeId switch_node_ = 0;
  std::uint64_t nics_per_node_ = 0;
  mutable std::vector<std::vector<std::uint32_t>> hops_to_;  // per destination, lazily: hop count from each vertex
  // The routes computed so far (a deque: a message in flight holds a pointer to its route), found through an
  // open-addressing table of (from << 32 | to, index) with linear probing: a thousand-GPU step looks a route up for
  // each of its hundreds of millions of messages, where a node-based map cost a cache miss per bucket and node.
  struct RouteSlot {
    std::uint64_t key = kNoRoute;
    std::uint32_t index = 0;
  };
  static constexpr std::uint64_t kNoRoute = ~std::uint64_t{0};
  mutable std::deque<std::vector<LinkId>> routes_;
  mutable std::vector<std::uint64_t> route_keys_;  // of routes_, in the same order
  mutable std::vector<RouteSlot> route_slots_;
};

}  // namespace roofsim::net
