#pragma once
// Collective algorithms as send/receive schedules (plain C++). Each builds, for one group of ranks, the transfers and
// reductions of the algorithm with messages split into chunks of at most `chunk_bytes`, so that chunk j of a step
// may travel while chunk j+1 of the step before is still being reduced (pipelining).
//
// Sizes follow nccl-tests (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md): `bytes` is the
// buffer of each rank for allreduce, broadcast and alltoall, the whole gathered output for allgather, and the whole
// input of each rank for reducescatter.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/net/schedule.h"
#include "models/net/topology.h"

namespace roofsim::net {

enum class CollectiveOp { allreduce, allgather, reducescatter, alltoall, broadcast };
enum class Algorithm { ring, tree, halving_doubling, direct, hierarchical, in_switch, collnet };

inline constexpr CollectiveOp kAllCollectiveOps[] = {CollectiveOp::allreduce, CollectiveOp::allgather,
                                                     CollectiveOp::reducescatter, CollectiveOp::alltoall,
                                                     CollectiveOp::broadcast};
inline constexpr Algorithm kAllAlgorithms[] = {Algorithm::ring,   Algorithm::tree,         Algorithm::halving_doubling,
                                               Algorithm::direct, Algorithm::hierarchical, Algorithm::in_switch,
                                               Algorithm::collnet};

[[nodiscard]] std::string_view to_string(CollectiveOp op);
[[nodiscard]] std::string_view to_string(Algorithm algorithm);  // ring, tree, hd, direct, hierarchical, switch, collnet
[[nodiscard]] std::optional<CollectiveOp> parse_collective_op(std::string_view text);
[[nodiscard]] std::optional<Algorithm> parse_algorithm(std::string_view text);

// nccl-tests' bus-bandwidth factor: busbw = algbw x factor, the fraction of the data each rank's link must carry
// (allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n; broadcast 1).
[[nodiscard]] double bus_bandwidth_factor(CollectiveOp op, std::size_t ranks);

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::allreduce;
  Algorithm algorithm = Algorithm::ring;
  Bytes bytes = 0;
  std::vector<NodeId> ranks;        // the group, in the order the algorithm uses (a ring's order)
  Bytes chunk_bytes = 1024 * 1024;  // pipelining unit
  std::size_t root = 0;             // broadcast: index into ranks
  // hierarchical: group sizes per level, fastest first; product = ranks; rank i's coordinate on level l is
  // (i / product of the faster levels) mod levels[l].
  std::vector<std::uint64_t> levels;
  std::optional<NodeId> switch_node;  // in_switch: the reducing switch (none: the algorithm is unavailable)
  // collnet: per device index within a node (levels = devices per node, nodes), the fabric switch that reduces that
  // index's shards across the nodes (SHARP); empty: the algorithm is unavailable.
  std::vector<NodeId> aggregation_switches;
  // NCCL's channels: the buffer is split evenly over them and each runs the algorithm on its own, in parallel. Each
  // entry is a channel's order of the same devices (a ring's order: rail-aligned, or reversed to use the other link
  // direction); ring and tree follow it, the other algorithms keep `ranks`. Empty: one channel on `ranks`.
  std::vector<std::vector<NodeId>> channels;
  // The receive buffer of one connection (a sender to a receiver, per channel and tree), in payload bytes: a ring's or
  // tree's message may leave only while the messages of the connection not yet consumed by the receiver (reduced,
  // else arrived) and itself fit in it; a message larger than the buffer goes alone (NCCL's NCCL_STEPS slots of a
  // connection, protocol.h). 0: unlimited.
  Bytes send_window_bytes = 0;

  [[nodiscard]] std::size_t channel_count() const { return channels.empty() ? 1 : channels.size(); }
};

// Why an algorithm cannot run a request ("" when it can): an op it does not implement, a rank count that is not a
// power of two for halving-doubling, levels that do not multiply to the group size, no reducing switch.
[[nodiscard]] std::string unsupported_reason(const CollectiveRequest& request);

// Whether an algorithm runs each channel in the channel's order of ranks (ring, tree) or in `ranks` (the others).
[[nodiscard]] bool follows_channel_order(Algorithm algorithm);

// The schedule of the request (finalized). Throws std::invalid_argument when unsupported_reason() is not empty.
[[nodiscard]] Schedule build_schedule(const CollectiveRequest& request);

// In-switch reduction: the loads of a chunk start once the chunk this many places earlier has come back reduced, so
// loads, stores and multicasts of consecutive chunks overlap instead of every load queueing ahead of every store (the
// SMs pull a few chunks at a time).
inline constexpr std::size_t kInSwitchWindowChunks = 4;

// CollNet Direct (NCCL 2.12+ with the SHARP plugin; Graham et al., "Scalable Hierarchical Aggregation Protocol
// (SHArP)", COMHPC 2016): per slice of the buffer, a reduce-scatter over each node's NVLink ring, then device d of
// every node sends its shard to the fabric switch of its rail, which reduces the nodes' copies and returns the sum to
// each of them, then an all-gather over each node's ring. Slices pipeline through the three phases as hierarchical
// ones do (hierarchical_slices).

// Hierarchical collectives run the buffer in this many pipelined slices (each keeps at least one chunk per rank
// of the first level; at most 8).
[[nodiscard]] std::size_t hierarchical_slices(const CollectiveRequest& request);

// The share of `total` bytes that part `index` of `parts` gets (the first total % parts parts get one byte more).
[[nodiscard]] Bytes share(Bytes total, std::size_t parts, std::size_t index);

// The two binary trees of NCCL's double binary tree (NVIDIA NCCL src/graph/trees.cc, after Sanders, Speck and
// Traeff, "Two-tree algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 2009): tree 0
// is an in-order binary tree whose root 0 has one child; tree 1 is its mirror (even n) or shift (odd n), so a rank
// that is a leaf in one tree is interior in the other. parent[i] is -1 at the root.
struct BinaryTree {
  std::vector<int> parent;
  std::vector<std::vector<int>> children;
  [[nodiscard]] std::size_t height() const;  // edges on the longest root-to-leaf path
};
[[nodiscard]] std::vector<BinaryTree> double_binary_tree(std::size_t ranks);

}  // namespace roofsim::net
