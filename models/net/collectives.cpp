#include "models/net/collectives.h"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

namespace roofsim::net {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce: return "allreduce";
    case CollectiveOp::allgather: return "allgather";
    case CollectiveOp::reducescatter: return "reducescatter";
    case CollectiveOp::alltoall: return "alltoall";
    case CollectiveOp::broadcast: return "broadcast";
  }
  return "allreduce";
}

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::ring: return "ring";
    case Algorithm::tree: return "tree";
    case Algorithm::halving_doubling: return "hd";
    case Algorithm::direct: return "direct";
    case Algorithm::hierarchical: return "hierarchical";
    case Algorithm::in_switch: return "switch";
    case Algorithm::collnet: return "collnet";
  }
  return "ring";
}

std::optional<CollectiveOp> parse_collective_op(std::string_view text) {
  for (const auto op : kAllCollectiveOps) {
    if (to_string(op) == text) return op;
  }
  return std::nullopt;
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
  for (const auto algorithm : kAllAlgorithms) {
    if (to_string(algorithm) == text) return algorithm;
  }
  return std::nullopt;
}

double bus_bandwidth_factor(CollectiveOp op, std::size_t ranks) {
  const double n = static_cast<double>(ranks);
  switch (op) {
    case CollectiveOp::allreduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::allgather:
    case CollectiveOp::reducescatter:
    case CollectiveOp::alltoall: return (n - 1.0) / n;
    case CollectiveOp::broadcast: return 1.0;
  }
  return 1.0;
}

Bytes share(Bytes total, std::size_t parts, std::size_t index) {
  return total / parts + (index < total % parts ? 1 : 0);
}

std::size_t BinaryTree::height() const {
  std::size_t deepest = 0;
  for (std::size_t i = 0; i < parent.size(); ++i) {
    std::size_t depth = 0;
    for (int at = static_cast<int>(i); parent[static_cast<std::size_t>(at)] >= 0;
         at = parent[static_cast<std::size_t>(at)])
      ++depth;
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

namespace {

// NCCL's ncclGetBtree: the parent of `rank` in the in-order binary tree of n ranks (-1 for the root, rank 0).
int btree_parent(int n, int rank) {
  if (rank == 0) return -1;
  int bit = 1;
  while (bit < n && (bit & rank) == 0) bit <<= 1;
  int up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  return up;
}

BinaryTree tree_from_parents(std::vector<int> parent) {
  BinaryTree tree;
  tree.children.resize(parent.size());
  for (std::size_t i = 0; i < parent.size(); ++i) {
    if (parent[i] >= 0) tree.children[static_cast<std::size_t>(parent[i])].push_back(static_cast<int>(i));
  }
  tree.parent = std::move(parent);
  return tree;
}

// Group members by level: the groups of level l are the ranks that agree on every coordinate but l.
std::vector<std::vector<std::size_t>> level_groups(const std::vector<std::uint64_t>& levels, std::size_t level) {
  std::uint64_t stride = 1;
  for (std::size_t l = 0; l < level; ++l) stride *= levels[l];
  std::uint64_t total = 1;
  for (const auto size : levels) total *= size;
  std::vector<std::vector<std::size_t>> groups;
  for (std::uint64_t base = 0; base < total; ++base) {
    if ((base / stride) % levels[level] != 0) continue;
    std::vector<std::size_t> group;
    for (std::uint64_t m = 0; m < levels[level]; ++m) group.push_back(static_cast<std::size_t>(base + m * stride));
    groups.push_back(std::move(group));
  }
  return groups;
}

// A list of "no op yet" (kept out of line: GCC 12 warns wrongly about vector(n, value) inlined here).
[[gnu::noinline]] std::vector<OpId> no_ops(std::size_t n) {
  std::vector<OpId> ops;
  ops.resize(n, kNoOp);
  return ops;
}

std::size_t chunk_count(Bytes bytes, Bytes chunk_bytes) {
  return bytes <= chunk_bytes ? 1 : static_cast<std::size_t>((bytes + chunk_bytes - 1) / chunk_bytes);
}

// One op standing for several: the op itself when there is one, else a join.
OpId gather(Schedule& schedule, const std::vector<OpId>& ops) {
  std::vector<OpId> real;
  for (const auto op : ops) {
    if (op != kNoOp) real.push_back(op);
  }
  if (real.empty()) return kNoOp;
  if (real.size() == 1) return real.front();
  return schedule.add_join(real);
}

// The send window of every connection among the ops from `first` on (one channel's ring, one tree): a transfer
// waits for the release of the latest earlier transfer of its connection (same sender and receiver) such that the
// bytes from that one to itself exceed the window. A transfer is released when the reductions at its receiver that
// read it have finished, else when it has arrived (the receiver's slot is free once the data has been read).
void limit_in_flight(Schedule& schedule, OpId first, Bytes window_bytes) {
  if (window_bytes == 0) return;
  const auto end = static_cast<OpId>(schedule.size());
  std::vector<std::vector<OpId>> readers(end - first);
  for (OpId id = first; id < end; ++id) {
    const auto& op = schedule.op(id);
    if (op.kind != OpKind::reduce) continue;
    for (const OpId* dep = schedule.dependencies_begin(id); dep != schedule.dependencies_end(id); ++dep) {
      if (*dep < first) continue;
      const auto& sent = schedule.op(*dep);
      if (sent.kind == OpKind::transfer && sent.dst == op.src) readers[*dep - first].push_back(id);
    }
  }
  struct Connection {
    std::vector<OpId> sends;
    std::size_t oldest = 0;  // the first send not yet known to be outside the window of the latest
    Bytes bytes = 0;         // bytes of sends[oldest ..]
  };
  std::map<std::pair<NodeId, NodeId>, Connection> connections;
  for (OpId id = first; id < end; ++id) {
    const auto& op = schedule.op(id);
    if (op.kind != OpKind::transfer) continue;
    auto& connection = connections[{op.src, op.dst}];
    connection.sends.push_back(id);
    connection.bytes += op.bytes;
    OpId release = kNoOp;
    while (connection.sends.size() - connection.oldest > 1 && connection.bytes > window_bytes) {
      release = connection.sends[connection.oldest];
      connection.bytes -= schedule.op(release).bytes;
      ++connection.oldest;
    }
    if (release == kNoOp) continue;
    const auto& read_by = readers[release - first];
    if (read_by.empty()) {
      schedule.add_dependency(id, release);
    } else {
      for (const OpId reader : read_by) schedule.add_dependency(id, reader);
    }
  }
}

enum class RingKind { reduce_scatter, all_gather, all_reduce };

// A ring over `members` (indices into ranks) of a buffer of `bytes` in members.size() shards. Rank i may begin
// after entry[i]; returns, per member, the op after which it holds its result. Reduce-scatter leaves member i with
// shard i reduced; all-gather starts from member i holding shard i.
std::vector<OpId> ring_phase(Schedule& schedule, const std::vector<NodeId>& ranks,
                             const std::vector<std::size_t>& members, Bytes bytes, Bytes chunk_bytes, RingKind kind,
                             const std::vector<OpId>& entry) {
  const std::size_t q = members.size();
  if (q == 1) return entry;
  const std::size_t k = chunk_count(share(bytes, q, 0), chunk_bytes);
  // ready[i * k + j]: the op after which member i holds the data it sends next for chunk j.
  std::vector<OpId> ready;
  ready.reserve(q * k);
  for (std::size_t i = 0; i < q; ++i) ready.insert(ready.end(), k, entry[i]);
  const std::size_t reduce_steps = kind == RingKind::all_gather ? 0 : q - 1;
  const std::size_t gather_steps = kind == RingKind::reduce_scatter ? 0 : q - 1;
  std::vector<OpId> next = no_ops(q * k);
  for (std::size_t step = 0; step < reduce_steps + gather_steps; ++step) {
    const bool reducing = step < reduce_steps;
    for (std::size_t i = 0; i < q; ++i) {
      const std::size_t to = (i + 1) % q;
      // Reduce-scatter: member i sends shard i - step - 1; all-gather: shard i - step (see the header).
      const std::size_t shard = reducing ? (i + 2 * q - step - 1) % q : (i + 2 * q - (step - reduce_steps)) % q;
      const Bytes shard_bytes = share(bytes, q, shard);
      for (std::size_t j = 0; j < k; ++j) {
        const Bytes part = share(shard_bytes, k, j);
        const OpId sent = schedule.add_transfer(ranks[members[i]], ranks[members[to]], part, {ready[i * k + j]});
        next[to * k + j] =
            reducing ? schedule.add_reduce(ranks[members[to]], part, {sent, step == 0 ? entry[to] : kNoOp}) : sent;
      }
    }
    std::swap(ready, next);
  }
  std::vector<OpId> exit(q);
  for (std::size_t i = 0; i < q; ++i) {
    std::vector<OpId> last(ready.begin() + static_cast<std::ptrdiff_t>(i * k),
                           ready.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
    exit[i] = gather(schedule, last);
  }
  return exit;
}

void build_ring_steps(Schedule& schedule, const CollectiveRequest& request) {
  const auto& ranks = request.ranks;
  const std::size_t p = ranks.size();
  std::vector<std::size_t> all(p);
  for (std::size_t i = 0; i < p; ++i) all[i] = i;
  const auto none = no_ops(p);
  switch (request.op) {
    case CollectiveOp::allreduce:
      (void)ring_phase(schedule, ranks, all, request.bytes, request.chunk_bytes, RingKind::all_reduce, none);
      break;
    case CollectiveOp::allgather:
      (void)ring_phase(schedule, ranks, all, request.bytes, request.chunk_bytes, RingKind::all_gather, none);
      break;
    case CollectiveOp::reducescatter:
      (void)ring_phase(schedule, ranks, all, request.bytes, request.chunk_bytes, RingKind::reduce_scatter, none);
      break;
    case CollectiveOp::broadcast: {
      // A pipelined chain from the root around the ring: chunk j moves on as soon as it has arrived.
      const std::size_t k = chunk_count(request.bytes, request.chunk_bytes);
      std::vector<OpId> arrived = no_ops(k);
      for (std::size_t hop = 0; hop + 1 < p; ++hop) {
        const auto from = ranks[(request.root + hop) % p];
        const auto to = ranks[(request.root + hop + 1) % p];
        for (std::size_t j = 0; j < k; ++j) {
          arrived[j] = schedule.add_transfer(from, to, share(request.bytes, k, j), {arrived[j]});
        }
      }
      break;
    }
    case CollectiveOp::alltoall: break;
  }
}

void build_ring(Schedule& schedule, const CollectiveRequest& request) {
  const auto first = static_cast<OpId>(schedule.size());
  build_ring_steps(schedule, request);
  limit_in_flight(schedule, first, request.send_window_bytes);
}

// Every rank sends shard d of its buffer to rank d (in the order d = i+1, i+2, ...) and reduces what it receives.
std::vector<OpId> direct_reduce_scatter(Schedule& schedule, const CollectiveRequest& request) {
  const auto& ranks = request.ranks;
  const std::size_t p = ranks.size();
  std::vector<std::vector<OpId>> reduced(p);
  for (std::size_t offset = 1; offset < p; ++offset) {
    for (std::size_t i = 0; i < p; ++i) {
      const std::size_t d = (i + offset) % p;
      const Bytes shard = share(request.bytes, p, d);
      const std::size_t k = chunk_count(shard, request.chunk_bytes);
      for (std::size_t j = 0; j < k; ++j) {
        const Bytes part = share(shard, k, j);
        const OpId sent = schedule.add_transfer(ranks[i], ranks[d], part);
        reduced[d].push_back(schedule.add_reduce(ranks[d], part, {sent}));
      }
    }
  }
  std::vector<OpId> done(p);
  for (std::size_t d = 0; d < p; ++d) done[d] = gather(schedule, reduced[d]);
  return done;
}

// Every rank sends `piece(i, d)` bytes to every other rank d after entry[i].
void direct_exchange(Schedule& schedule, const CollectiveRequest& request, const std::vector<OpId>& entry,
                     const std::function<Bytes(std::size_t, std::size_t)>& piece) {
  const auto& ranks = request.ranks;
  const std::size_t p = ranks.size();
  for (std::size_t offset = 1; offset < p; ++offset) {
    for (std::size_t i = 0; i < p; ++i) {
      const std::size_t d = (i + offset) % p;
      const Bytes bytes = piece(i, d);
      const std::size_t k = chunk_count(bytes, request.chunk_bytes);
      for (std::size_t j = 0; j < k; ++j) schedule.add_transfer(ranks[i], ranks[d], share(bytes, k, j), {entry[i]});
    }
  }
}

void build_direct(Schedule& schedule, const CollectiveRequest& request) {
  const std::size_t p = request.ranks.size();
  const Bytes total = request.bytes;
  const auto none = no_ops(p);
  switch (request.op) {
    case CollectiveOp::allreduce: {
      const auto reduced = direct_reduce_scatter(schedule, request);
      direct_exchange(schedule, request, reduced, [&](std::size_t i, std::size_t) { return share(total, p, i); });
      break;
    }
    case CollectiveOp::reducescatter: (void)direct_reduce_scatter(schedule, request); break;
    case CollectiveOp::allgather:
      direct_exchange(schedule, request, none, [&](std::size_t i, std::size_t) { return share(total, p, i); });
      break;
    case CollectiveOp::alltoall:
      direct_exchange(schedule, request, none, [&](std::size_t, std::size_t d) { return share(total, p, d); });
      break;
    case CollectiveOp::broadcast: {
      const std::size_t k = chunk_count(total, request.chunk_bytes);
      for (std::size_t offset = 1; offset < p; ++offset) {
        const std::size_t d = (request.root + offset) % p;
        for (std::size_t j = 0; j < k; ++j) {
          schedule.add_transfer(request.ranks[request.root], request.ranks[d], share(total, k, j));
        }
      }
      break;
    }
  }
}

// Recursive halving (reduce-scatter) and recursive doubling (all-gather) of Thakur, Rabenseifner and Gropp 2005.
// Rank i's range of shards is tracked as [first, first + count).
void build_halving_doubling(Schedule& schedule, const CollectiveRequest& request) {
  const auto& ranks = request.ranks;
  const std::size_t p = ranks.size();
  const Bytes total = request.bytes;
  std::size_t log_p = 0;
  while ((std::size_t{1} << log_p) < p) ++log_p;
  const auto range_bytes = [&](std::size_t first, std::size_t count) {
    Bytes bytes = 0;
    for (std::size_t s = first; s < first + count; ++s) bytes += share(total, p, s);
    return bytes;
  };
  const auto send_chunked = [&](std::size_t from, std::size_t to, Bytes bytes, OpId after, bool reduce, OpId own_data) {
    std::vector<OpId> landed;
    const std::size_t k = chunk_count(bytes, request.chunk_bytes);
    for (std::size_t j = 0; j < k; ++j) {
      const Bytes part = share(bytes, k, j);
      const OpId sent = schedule.add_transfer(ranks[from], ranks[to], part, {after});
      landed.push_back(reduce ? schedule.add_reduce(ranks[to], part, {sent, own_data}) : sent);
    }
    return landed;
  };

  if (request.op == CollectiveOp::broadcast) {
    // Binomial tree: in step s, every rank that has the data (relative rank v < 2^s) sends it to v + 2^s.
    std::vector<OpId> has = no_ops(p);
    for (std::size_t s = 0; s < log_p; ++s) {
      const std::size_t span = std::size_t{1} << s;
      for (std::size_t v = 0; v < span && v + span < p; ++v) {
        const std::size_t from = (request.root + v) % p;
        const std::size_t to = (request.root + v + span) % p;
        has[to] = gather(schedule, send_chunked(from, to, total, has[from], false, kNoOp));
      }
    }
    return;
  }

  std::vector<std::size_t> first(p, 0), count(p, p);
  std::vector<OpId> ready = no_ops(p);
  if (request.op != CollectiveOp::allgather) {
    for (std::size_t s = 0; s < log_p; ++s) {
      const std::size_t distance = p >> (s + 1);
      std::vector<std::vector<OpId>> landed(p);
      for (std::size_t i = 0; i < p; ++i) {
        const std::size_t partner = i ^ distance;
        const std::size_t half = count[i] / 2;
        // The rank with the distance bit clear keeps the lower half and sends the upper one.
        const bool keeps_lower = (i & distance) == 0;
        const std::size_t send_first = keeps_lower ? first[i] + half : first[i];
        auto got = send_chunked(i, partner, range_bytes(send_first, half), ready[i], true, ready[partner]);
        landed[partner].insert(landed[partner].end(), got.begin(), got.end());
      }
      for (std::size_t i = 0; i < p; ++i) {
        const std::size_t half = count[i] / 2;
        if ((i & distance) != 0) first[i] += half;
        count[i] = half;
        ready[i] = gather(schedule, landed[i]);
      }
    }
  } else {
    for (std::size_t i = 0; i < p; ++i) {
      first[i] = i;
      count[i] = 1;
    }
  }
  if (request.op == CollectiveOp::reducescatter) return;
  for (std::size_t s = 0; s < log_p; ++s) {
    const std::size_t distance = std::size_t{1} << s;
    std::vector<std::vector<OpId>> landed(p);
    for (std::size_t i = 0; i < p; ++i) {
      const std::size_t partner = i ^ distance;
      auto got = send_chunked(i, partner, range_bytes(first[i], count[i]), ready[i], false, kNoOp);
      landed[partner].insert(landed[partner].end(), got.begin(), got.end());
    }
    const auto previous_first = first;
    for (std::size_t i = 0; i < p; ++i) {
      landed[i].push_back(ready[i]);
      first[i] = std::min(previous_first[i], previous_first[i ^ distance]);
      count[i] *= 2;
    }
    for (std::size_t i = 0; i < p; ++i) ready[i] = gather(schedule, landed[i]);
  }
}

// Reduce up a tree and broadcast down it, chunk by chunk; `bytes` is this tree's share of the buffer.
void tree_allreduce(Schedule& schedule, const std::vector<NodeId>& ranks, const BinaryTree& tree, Bytes bytes,
                    Bytes chunk_bytes) {
  const std::size_t p = ranks.size();
  std::vector<std::size_t> depth(p, 0);
  std::size_t root = 0;
  for (std::size_t i = 0; i < p; ++i) {
    if (tree.parent[i] < 0) root = i;
    for (int at = static_cast<int>(i); tree.parent[static_cast<std::size_t>(at)] >= 0;
         at = tree.parent[static_cast<std::size_t>(at)]) {
      ++depth[i];
    }
  }
  std::vector<std::size_t> deepest_first(p);
  for (std::size_t i = 0; i < p; ++i) deepest_first[i] = i;
  std::stable_sort(deepest_first.begin(), deepest_first.end(),
                   [&](std::size_t a, std::size_t b) { return depth[a] > depth[b]; });
  const std::size_t k = chunk_count(bytes, chunk_bytes);
  for (std::size_t j = 0; j < k; ++j) {
    const Bytes part = share(bytes, k, j);
    std::vector<std::vector<OpId>> reduced(p);
    for (const auto i : deepest_first) {
      if (tree.parent[i] < 0) continue;
      const auto up = static_cast<std::size_t>(tree.parent[i]);
      const OpId sent = schedule.add_transfer(ranks[i], ranks[up], part, reduced[i]);
      reduced[up].push_back(schedule.add_reduce(ranks[up], part, {sent}));
    }
    std::vector<OpId> has = no_ops(p);
    has[root] = gather(schedule, reduced[root]);
    for (auto it = deepest_first.rbegin(); it != deepest_first.rend(); ++it) {
      for (const int child : tree.children[*it]) {
        const auto c = static_cast<std::size_t>(child);
        has[c] = schedule.add_transfer(ranks[*it], ranks[c], part, {has[*it]});
      }
    }
  }
}

void build_tree(Schedule& schedule, const CollectiveRequest& request) {
  const std::size_t p = request.ranks.size();
  const auto trees = double_binary_tree(p);
  if (request.op == CollectiveOp::allreduce) {
    // Each tree reduces and broadcasts half of the buffer (NCCL's tree algorithm).
    // Each tree has its own connections (NCCL runs the two trees on different channels).
    for (std::size_t t = 0; t < 2; ++t) {
      const auto first = static_cast<OpId>(schedule.size());
      tree_allreduce(schedule, request.ranks, trees[t], share(request.bytes, 2, t), request.chunk_bytes);
      limit_in_flight(schedule, first, request.send_window_bytes);
    }
    return;
  }
  // Broadcast down tree 0 with ranks relabelled so that the root is tree position 0.
  const auto& tree = trees[0];
  const auto rank_at = [&](std::size_t position) { return request.ranks[(position + request.root) % p]; };
  const std::size_t k = chunk_count(request.bytes, request.chunk_bytes);
  const auto first = static_cast<OpId>(schedule.size());
  std::vector<std::size_t> order{0};
  for (std::size_t n = 0; n < order.size(); ++n) {
    for (const int child : tree.children[order[n]]) order.push_back(static_cast<std::size_t>(child));
  }
  for (std::size_t j = 0; j < k; ++j) {
    std::vector<OpId> has = no_ops(p);
    for (const auto position : order) {
      for (const int child : tree.children[position]) {
        const auto c = static_cast<std::size_t>(child);
        has[c] = schedule.add_transfer(rank_at(position), rank_at(c), share(request.bytes, k, j), {has[position]});
      }
    }
  }
  limit_in_flight(schedule, first, request.send_window_bytes);
}

// Reduce-scatter along the levels from the fastest, all-reduce along the slowest, all-gather back (the
// multi-dimensional scheme of NCCL's and ASTRA-sim's hierarchical collectives).
// One slice of a hierarchical collective. It starts at each rank when the previous slice has left its first level
// (`first_level_done`, updated for the next slice), so slices flow through the levels like a pipeline.
void build_hierarchical_slice(Schedule& schedule, const CollectiveRequest& request, Bytes total,
                              std::vector<OpId>& first_level_done) {
  const auto& levels = request.levels;
  const std::size_t p = request.ranks.size();
  const std::size_t last = levels.size() - 1;
  std::vector<OpId> ready = first_level_done;
  bool first_level = true;
  std::vector<Bytes> buffer(p, total);  // each rank's working buffer at the current level
  const auto run_level = [&](std::size_t level, RingKind kind, bool shrink) {
    for (const auto& group : level_groups(levels, level)) {
      std::vector<OpId> entry;
      for (const auto i : group) entry.push_back(ready[i]);
      const Bytes bytes = buffer[group.front()];
      const auto exit = ring_phase(schedule, request.ranks, group, bytes, request.chunk_bytes, kind, entry);
      for (std::size_t m = 0; m < group.size(); ++m) {
        ready[group[m]] = exit[m];
        if (shrink) buffer[group[m]] = share(bytes, group.size(), m);
      }
    }
    if (first_level) first_level_done = ready;
    first_level = false;
  };
  switch (request.op) {
    case CollectiveOp::allreduce: {
      std::vector<std::vector<Bytes>> before(last);
      for (std::size_t l = 0; l < last; ++l) {
        before[l] = buffer;
        run_level(l, RingKind::reduce_scatter, true);
      }
      run_level(last, RingKind::all_reduce, false);
      for (std::size_t l = last; l-- > 0;) {
        buffer = before[l];
        run_level(l, RingKind::all_gather, false);
      }
      break;
    }
    case CollectiveOp::reducescatter:
      for (std::size_t l = 0; l <= last; ++l) run_level(l, RingKind::reduce_scatter, true);
      break;
    case CollectiveOp::allgather:
      // From the slowest level, where the pieces are smallest: each rank starts with total / p.
      for (std::size_t i = 0; i < p; ++i) buffer[i] = total / p;
      for (std::size_t l = last + 1; l-- > 0;) {
        for (std::size_t i = 0; i < p; ++i) buffer[i] *= levels[l];
        run_level(l, RingKind::all_gather, false);
      }
      break;
    case CollectiveOp::alltoall:
    case CollectiveOp::broadcast: break;
  }
}

// The buffer is cut into independent slices that each run every level, so that one slice's inter-node phase
// overlaps the next slice's intra-node phase (as NCCL's channels pipeline its hierarchical collectives); a slice
// keeps at least one chunk per rank of the first level.
void build_hierarchical(Schedule& schedule, const CollectiveRequest& request) {
  const std::size_t slices = hierarchical_slices(request);
  std::vector<OpId> first_level_done = no_ops(request.ranks.size());
  for (std::size_t slice = 0; slice < slices; ++slice) {
    build_hierarchical_slice(schedule, request, share(request.bytes, slices, slice), first_level_done);
  }
}

// NVLink SHARP ("NVLS") data flow: for each shard, the owner's multimem load makes the switch read the shard from
// every rank, reduce it and return it to the owner; the owner's multimem store sends it back to the switch, which
// multicasts it to every rank (NVIDIA NCCL 2.17+ NVLS algorithm; H100 whitepaper, NVLink SHARP). Each rank's link
// carries the buffer plus one shard in each direction. Broadcast and allgather use the multicast half only.
void build_in_switch(Schedule& schedule, const CollectiveRequest& request) {
  const auto& ranks = request.ranks;
  const std::size_t p = ranks.size();
  const NodeId sw = *request.switch_node;
  const bool reduces = request.op == CollectiveOp::allreduce || request.op == CollectiveOp::reducescatter;
  const std::size_t shards = request.op == CollectiveOp::broadcast ? 1 : p;
  constexpr std::size_t kWindow = kInSwitchWindowChunks;
  std::vector<OpId> returns;
  // Chunk-major order: every owner works on its shard at once, as every GPU's SMs do.
  const std::size_t k = chunk_count(request.op == CollectiveOp::broadcast ? request.bytes : share(request.bytes, p, 0),
                                    request.chunk_bytes);
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t d = 0; d < shards; ++d) {
      const std::size_t owner = request.op == CollectiveOp::broadcast ? request.root : d;
      const Bytes shard = request.op == CollectiveOp::broadcast ? request.bytes : share(request.bytes, p, d);
      const Bytes part = share(shard, k, j);
      OpId at_owner = kNoOp;
      if (reduces) {
        std::vector<OpId> loads;
        const OpId window = returns.size() >= kWindow * shards ? returns[returns.size() - kWindow * shards] : kNoOp;
        for (std::size_t i = 0; i < p; ++i) loads.push_back(schedule.add_transfer(ranks[i], sw, part, {window}));
        // The switch's reduction engines take in every rank's copy of the chunk (their throughput is a key of the
        // switch; free by default).
        const OpId reduced = schedule.add_reduce(sw, part * p, {gather(schedule, loads)});
        at_owner = schedule.add_transfer(sw, ranks[owner], part, {reduced});
        returns.push_back(at_owner);
      }
      if (request.op == CollectiveOp::reducescatter) continue;
      const OpId stored = schedule.add_transfer(ranks[owner], sw, part, {at_owner});
      for (std::size_t i = 0; i < p; ++i) {
        if (i != owner || request.op == CollectiveOp::allreduce) schedule.add_transfer(sw, ranks[i], part, {stored});
      }
    }
  }
}

// One slice of CollNet Direct (see the header); `first_level_done` as in build_hierarchical_slice.
void build_collnet_slice(Schedule& schedule, const CollectiveRequest& request, Bytes total,
                         std::vector<OpId>& first_level_done) {
  const auto& ranks = request.ranks;
  const std::size_t per_node = request.levels[0];
  const std::size_t nodes = request.levels[1];
  std::vector<OpId> ready = first_level_done;
  const auto node_phase = [&](RingKind kind) {
    for (std::size_t n = 0; n < nodes; ++n) {
      std::vector<std::size_t> group;
      std::vector<OpId> entry;
      for (std::size_t d = 0; d < per_node; ++d) {
        group.push_back(n * per_node + d);
        entry.push_back(ready[n * per_node + d]);
      }
      const auto exit = ring_phase(schedule, ranks, group, total, request.chunk_bytes, kind, entry);
      for (std::size_t d = 0; d < per_node; ++d) ready[n * per_node + d] = exit[d];
    }
  };
  node_phase(RingKind::reduce_scatter);
  first_level_done = ready;
  for (std::size_t d = 0; d < per_node; ++d) {
    const NodeId aggregator = request.aggregation_switches[d];
    const Bytes shard = share(total, per_node, d);
    const std::size_t k = chunk_count(shard, request.chunk_bytes);
    std::vector<std::vector<OpId>> returned(nodes);
    for (std::size_t j = 0; j < k; ++j) {
      const Bytes part = share(shard, k, j);
      std::vector<OpId> sent;
      for (std::size_t n = 0; n < nodes; ++n) {
        sent.push_back(schedule.add_transfer(ranks[n * per_node + d], aggregator, part, {ready[n * per_node + d]}));
      }
      // The switch's aggregation engines take in every node's copy (their throughput is the fabric switch's key).
      const OpId reduced = schedule.add_reduce(aggregator, part * nodes, {gather(schedule, sent)});
      for (std::size_t n = 0; n < nodes; ++n) {
        returned[n].push_back(schedule.add_transfer(aggregator, ranks[n * per_node + d], part, {reduced}));
      }
    }
    for (std::size_t n = 0; n < nodes; ++n) ready[n * per_node + d] = gather(schedule, returned[n]);
  }
  node_phase(RingKind::all_gather);
}

void build_collnet(Schedule& schedule, const CollectiveRequest& request) {
  const std::size_t slices = hierarchical_slices(request);
  std::vector<OpId> first_level_done = no_ops(request.ranks.size());
  for (std::size_t slice = 0; slice < slices; ++slice) {
    build_collnet_slice(schedule, request, share(request.bytes, slices, slice), first_level_done);
  }
}

bool power_of_two(std::size_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

}  // namespace

std::size_t hierarchical_slices(const CollectiveRequest& request) {
  constexpr Bytes kMaxSlices = 8;
  const Bytes per_slice_minimum = request.levels.front() * request.chunk_bytes;
  return static_cast<std::size_t>(std::clamp<Bytes>(request.bytes / per_slice_minimum, 1, kMaxSlices));
}

std::vector<BinaryTree> double_binary_tree(std::size_t ranks) {
  const int n = static_cast<int>(ranks);
  std::vector<int> first(ranks), second(ranks);
  for (int r = 0; r < n; ++r) first[static_cast<std::size_t>(r)] = btree_parent(n, r);
  for (int r = 0; r < n; ++r) {
    int parent = -1;
    if (n % 2 == 0) {
      const int up = btree_parent(n, n - 1 - r);  // mirror
      parent = up < 0 ? -1 : n - 1 - up;
    } else {
      const int up = btree_parent(n, (r - 1 + n) % n);  // shift
      parent = up < 0 ? -1 : (up + 1) % n;
    }
    second[static_cast<std::size_t>(r)] = parent;
  }
  return {tree_from_parents(std::move(first)), tree_from_parents(std::move(second))};
}

std::string unsupported_reason(const CollectiveRequest& request) {
  const std::size_t p = request.ranks.size();
  const auto op = request.op;
  if (p < 2) return "a collective needs at least 2 ranks";
  if (op == CollectiveOp::broadcast && request.root >= p) return "the broadcast root is not a rank of the group";
  const std::string name = std::string(to_string(request.algorithm)) + " " + std::string(to_string(op));
  switch (request.algorithm) {
    case Algorithm::ring:
      if (op == CollectiveOp::alltoall) return name + " is not an algorithm (alltoall: direct)";
      return "";
    case Algorithm::tree:
      if (op != CollectiveOp::allreduce && op != CollectiveOp::broadcast) {
        return name + " is not an algorithm (tree: allreduce, broadcast)";
      }
      return "";
    case Algorithm::halving_doubling:
      if (op == CollectiveOp::alltoall) return name + " is not an algorithm (alltoall: direct)";
      if (op != CollectiveOp::broadcast && !power_of_two(p)) {
        return name + " needs a power-of-two number of ranks, not " + std::to_string(p);
      }
      return "";
    case Algorithm::direct: return "";
    case Algorithm::hierarchical: {
      if (op == CollectiveOp::alltoall || op == CollectiveOp::broadcast) {
        return name + " is not an algorithm (hierarchical: allreduce, allgather, reducescatter)";
      }
      std::uint64_t product = 1;
      for (const auto size : request.levels) product *= size;
      if (request.levels.empty() || product != p) return "hierarchical levels do not multiply to the group size";
      return "";
    }
    case Algorithm::in_switch:
      if (op == CollectiveOp::alltoall) return name + " is not an algorithm (alltoall: direct)";
      if (!request.switch_node) return "switch needs a switch topology with in_switch_reduction = true";
      return "";
    case Algorithm::collnet:
      if (op != CollectiveOp::allreduce) return name + " is not an algorithm (collnet: allreduce)";
      if (request.levels.size() != 2 || request.levels[0] * request.levels[1] != p ||
          request.aggregation_switches.size() != request.levels[0]) {
        return "collnet needs a two_level topology whose fabric switches reduce (topology.fabric_reduction_bandwidth)";
      }
      return "";
  }
  return "";
}

namespace {

void build_channel(Schedule& schedule, const CollectiveRequest& request) {
  switch (request.algorithm) {
    case Algorithm::ring: build_ring(schedule, request); break;
    case Algorithm::tree: build_tree(schedule, request); break;
    case Algorithm::halving_doubling: build_halving_doubling(schedule, request); break;
    case Algorithm::direct: build_direct(schedule, request); break;
    case Algorithm::hierarchical: build_hierarchical(schedule, request); break;
    case Algorithm::in_switch: build_in_switch(schedule, request); break;
    case Algorithm::collnet: build_collnet(schedule, request); break;
  }
}

}  // namespace

Schedule build_schedule(const CollectiveRequest& request) {
  const auto reason = unsupported_reason(request);
  if (!reason.empty()) throw std::invalid_argument(reason);
  if (request.chunk_bytes == 0) throw std::invalid_argument("chunk size must be greater than 0");
  for (const auto& order : request.channels) {
    if (order.size() != request.ranks.size()) throw std::invalid_argument("a channel must order every rank");
  }
  Schedule schedule;
  if (request.channels.size() <= 1) {
    CollectiveRequest one = request;
    if (!request.channels.empty() && follows_channel_order(request.algorithm)) one.ranks = request.channels.front();
    build_channel(schedule, one);
  } else {
    const std::size_t count = request.channels.size();
    for (std::size_t c = 0; c < count; ++c) {
      CollectiveRequest part = request;
      part.bytes = share(request.bytes, count, c);
      if (follows_channel_order(request.algorithm)) {
        part.ranks = request.channels[c];
        // The broadcast root stays the same device.
        const NodeId root = request.ranks[request.root];
        part.root =
            static_cast<std::size_t>(std::find(part.ranks.begin(), part.ranks.end(), root) - part.ranks.begin());
      }
      if (part.bytes > 0) build_channel(schedule, part);
    }
  }
  schedule.finalize();
  return schedule;
}

bool follows_channel_order(Algorithm algorithm) {
  return algorithm == Algorithm::ring || algorithm == Algorithm::tree;
}

}  // namespace roofsim::net
