#include "models/net/topology.h"

#include "models/kernel/fast_index.h"

#include <boost/graph/breadth_first_search.hpp>

#include <limits>
#include <stdexcept>

namespace roofsim::net {

namespace {
constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
}

Topology::Topology(const TopologyParams& cluster)
    : kind_(cluster.topology), devices_(static_cast<std::uint32_t>(cluster.devices)) {
  for (std::uint32_t d = 0; d < devices_; ++d) add_node(NodeKind::device);
  const auto& link = cluster.link;
  switch (cluster.topology) {
    case TopologyKind::ring:
      // Two devices share one link; more close the ring.
      for (std::uint32_t d = 0; d + 1 < devices_; ++d) connect(d, d + 1, link, "link");
      if (devices_ > 2) connect(devices_ - 1, 0, link, "link");
      levels_ = {devices_};
      break;
    case TopologyKind::fully_connected:
      for (std::uint32_t a = 0; a < devices_; ++a) {
        for (std::uint32_t b = a + 1; b < devices_; ++b) connect(a, b, link, "link");
      }
      levels_ = {devices_};
      break;
    case TopologyKind::switch_star:
      switch_node_ = add_node(NodeKind::switch_node);
      for (std::uint32_t d = 0; d < devices_; ++d) connect(d, switch_node_, link, "link");
      in_switch_reduction_ = cluster.in_switch_reduction;
      levels_ = {devices_};
      break;
    case TopologyKind::torus: {
      dims_ = cluster.dims;
      levels_ = dims_;
      std::uint64_t stride = 1;
      for (const auto size : dims_) {
        for (std::uint32_t d = 0; d < devices_; ++d) {
          const auto coordinate = (d / stride) % size;
          // The + neighbour along this dimension, wrapping; a dimension of 2 has a single link, of 1 none.
          if (size < 2 || (size == 2 && coordinate == 1)) continue;
          const auto next = d - coordinate * stride + ((coordinate + 1) % size) * stride;
          connect(d, static_cast<NodeId>(next), link, "link");
        }
        stride *= size;
      }
      break;
    }
    case TopologyKind::two_level: {
      const auto per_node = cluster.devices_per_node;
      const auto nodes = cluster.devices / per_node;
      levels_ = {per_node, nodes};
      nics_per_node_ = cluster.nics_per_node;
      std::vector<NodeId> nics;
      for (std::uint64_t n = 0; n < nodes; ++n) {
        const auto node_switch = add_node(NodeKind::switch_node);
        for (std::uint64_t d = 0; d < per_node; ++d)
          connect(static_cast<NodeId>(n * per_node + d), node_switch, link, "link");
        const auto first_nic = static_cast<NodeId>(kinds_.size());
        for (std::uint64_t i = 0; i < cluster.nics_per_node; ++i) nics.push_back(add_node(NodeKind::nic));
        for (std::uint64_t d = 0; d < per_node; ++d) {
          connect(static_cast<NodeId>(n * per_node + d), static_cast<NodeId>(first_nic + d % cluster.nics_per_node),
                  cluster.host_link, "host_link");
        }
      }
      // A two-tier fat tree of leaf switches with leaf_ports NICs each and, when one leaf is not enough, one spine
      // per down port, each leaf linked once to every spine (full bisection bandwidth).
      // Rail-optimized (NVIDIA DGX SuperPOD reference architecture): NIC i of every node goes to the leaves of rail
      // i, so that same-rail traffic between nodes crosses one leaf only; otherwise NICs fill leaves in order.
      const auto ports = cluster.leaf_ports;
      const auto nics_per_node = cluster.nics_per_node;
      const auto groups = cluster.rail_optimized ? nics_per_node : 1;
      const auto per_group = nics.size() / groups;
      const auto leaves_per_group = (per_group + ports - 1) / ports;
      std::vector<NodeId> leaf_ids;
      for (std::uint64_t l = 0; l < groups * leaves_per_group; ++l) leaf_ids.push_back(add_node(NodeKind::switch_node));
      const auto leaves = leaf_ids.size();
      for (std::size_t i = 0; i < nics.size(); ++i) {
        const std::size_t group = cluster.rail_optimized ? i % nics_per_node : 0;
        const std::size_t index = cluster.rail_optimized ? i / nics_per_node : i;
        connect(nics[i], leaf_ids[group * leaves_per_group + index / ports], cluster.nic_link, "nic_link");
      }
      if (leaves > 1) {
        for (std::uint64_t s = 0; s < ports; ++s) {
          const auto spine = add_node(NodeKind::switch_node);
          for (const auto leaf : leaf_ids) connect(leaf, spine, cluster.fabric_link, "fabric_link");
        }
      }
      break;
    }
  }
  hops_to_.resize(kinds_.size());
}

NodeId Topology::add_node(NodeKind kind) {
  kinds_.push_back(kind);
  out_.emplace_back();
  return static_cast<NodeId>(boost::add_vertex(graph_));
}

void Topology::connect(NodeId a, NodeId b, const LinkParams& params, std::string_view kind) {
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    const auto id = static_cast<LinkId>(links_.size());
    links_.push_back(DirectedLink{from, to, params, kind});
    boost::add_edge(from, to, id, graph_);
    out_[from].emplace_back(to, id);
  }
}

const std::vector<std::uint32_t>& Topology::hops_to(NodeId destination) const {
  auto& hops = hops_to_[destination];
  if (!hops.empty()) return hops;
  // Every link has both directions, so hops from the destination equal hops to it.
  hops.assign(kinds_.size(), kUnreached);
  hops[destination] = 0;
  boost::breadth_first_search(
      graph_, boost::vertex(destination, graph_),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(hops.data(), boost::on_tree_edge()))));
  return hops;
}

const std::vector<LinkId>& Topology::route(NodeId from, NodeId to) const {
  const auto key = (static_cast<std::uint64_t>(from) << 32) | to;
  const auto slot_of = [this](std::uint64_t k) {
    const std::uint64_t mask = route_slots_.size() - 1;
    std::uint64_t slot = hash_bucket(k, route_slots_.size());
    while (route_slots_[slot].key != k && route_slots_[slot].key != kNoRoute) slot = (slot + 1) & mask;
    return slot;
  };
  if (!route_slots_.empty()) {
    const RouteSlot& found = route_slots_[slot_of(key)];
    if (found.key == key) return routes_[found.index];
  }
  const auto& hops = hops_to(to);
  std::vector<LinkId> path;
  if (hops[from] == kUnreached) throw std::logic_error("topology: no route between two vertices");
  NodeId at = from;
  while (at != to) {
    std::vector<std::pair<NodeId, LinkId>> nearer;
    for (const auto& next : out_[at]) {
      if (hops[next.first] + 1 == hops[at]) nearer.push_back(next);
    }
    const auto& chosen = nearer[to % nearer.size()];
    path.push_back(chosen.second);
    at = chosen.first;
  }
  routes_.push_back(std::move(path));
  route_keys_.push_back(key);
  // At most half full: the table grows fourfold and every route found so far goes in again.
  if (2 * routes_.size() > route_slots_.size()) {
    std::size_t size = 64;
    while (size < 4 * routes_.size()) size *= 2;
    route_slots_.assign(size, RouteSlot{});
    for (std::uint32_t i = 0; i < route_keys_.size(); ++i) route_slots_[slot_of(route_keys_[i])] = {route_keys_[i], i};
  } else {
    route_slots_[slot_of(key)] = RouteSlot{key, static_cast<std::uint32_t>(routes_.size() - 1)};
  }
  return routes_.back();
}

std::vector<NodeId> Topology::ring_order() const {
  std::vector<NodeId> order;
  if (kind_ != TopologyKind::torus) {
    for (NodeId d = 0; d < devices_; ++d) order.push_back(d);
    return order;
  }
  // Boustrophedon walk (a reflected mixed-radix Gray code): a dimension's coordinate runs backward when the sum of
  // the slower coordinates is odd, so consecutive devices differ by one step in one dimension.
  for (std::uint32_t index = 0; index < devices_; ++index) {
    std::vector<std::uint64_t> digits(dims_.size());
    std::uint64_t rest = index;
    for (std::size_t i = dims_.size(); i-- > 0;) {
      std::uint64_t stride = 1;
      for (std::size_t j = 0; j < i; ++j) stride *= dims_[j];
      digits[i] = rest / stride;
      rest %= stride;
    }
    std::uint64_t device = 0;
    std::uint64_t stride = 1;
    std::uint64_t parity = 0;
    // Reflect from the slowest dimension down.
    std::vector<std::uint64_t> coords(dims_.size());
    for (std::size_t i = dims_.size(); i-- > 0;) {
      coords[i] = parity % 2 == 0 ? digits[i] : dims_[i] - 1 - digits[i];
      parity += coords[i];
    }
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      device += coords[i] * stride;
      stride *= dims_[i];
    }
    order.push_back(static_cast<NodeId>(device));
  }
  return order;
}

}  // namespace roofsim::net
