#pragma once
// The pending wake-ups of a device's clients (device_scheduler.h): one time per client in a winner tree, a fixed-size
// tournament over the clients compared on time and then index. Setting a client's time replays the matches on its
// path to the root, so the earliest wake-up is read at the root and kept current in log2(clients) steps, without the
// allocation and the lazy deletion a heap of requests would need. Plain C++.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

class WakeTree {
 public:
  // A new client with nothing pending; returns its index (the clients so far).
  std::uint32_t add() {
    ++clients_;
    std::size_t leaves = 1;
    while (leaves < clients_) leaves *= 2;
    std::vector<Key> tree(2 * leaves, Key{kNever, 0});
    for (std::uint32_t c = 0; c < leaves; ++c) tree[leaves + c] = Key{c < leaves_ ? pending(c) : kNever, c};
    tree_ = std::move(tree);
    leaves_ = leaves;
    for (std::size_t node = leaves - 1; node >= 1; --node) tree_[node] = first_of(tree_[2 * node], tree_[2 * node + 1]);
    return static_cast<std::uint32_t>(clients_ - 1);
  }

  [[nodiscard]] std::size_t size() const { return clients_; }
  // The client's pending time, kNever when none.
  [[nodiscard]] TimeFs pending(std::uint32_t client) const { return tree_[leaves_ + client].at; }
  // The earliest pending time (kNever when none) and its client; among equal times the highest index comes first.
  [[nodiscard]] TimeFs first_fs() const { return tree_[1].at; }
  [[nodiscard]] std::uint32_t first_client() const { return tree_[1].client; }

  // Moves `client` to `at_fs` (kNever: nothing pending) and replays the matches on its path to the root, each against
  // the sibling's winner. An earlier time stops where it loses (the winners above do not change); a later one where
  // the client had not won.
  void set(std::uint32_t client, TimeFs at_fs) {
    std::size_t node = leaves_ + client;
    const bool sooner = at_fs < tree_[node].at;
    Key key{at_fs, client};
    tree_[node] = key;
    if (sooner) {
      for (node /= 2; node >= 1; node /= 2) {
        const Key& held = tree_[node];
        if (held.client != client && (held.at < at_fs || (held.at == at_fs && held.client > client))) return;
        tree_[node] = key;
      }
      return;
    }
    for (; node > 1 && tree_[node / 2].client == client; node /= 2) {
      key = first_of(key, tree_[node ^ 1]);
      tree_[node / 2] = key;
    }
  }

  // Drops the first client's pending time. It won every match on its path: each of them goes to the winner of the
  // rest, replayed to the root without a branch on the outcomes.
  void pop_first() {
    std::size_t node = leaves_ + tree_[1].client;
    Key key{kNever, tree_[1].client};
    tree_[node] = key;
    for (; node > 1; node /= 2) {
      key = first_of(key, tree_[node ^ 1]);
      tree_[node / 2] = key;
    }
  }

 private:
  // A pending wake-up; the tree's nodes hold their winner's, so that a match reads its two entrants side by side
  // and replaying a path does not chase a winner's index to its time at every level.
  struct Key {
    TimeFs at = kNever;
    std::uint32_t client = 0;
  };
  // The winner of a match: the earlier time, ties to the higher client index. A total order (clients differ), so it
  // does not matter which entrant is the left one; branch-free, as the outcome of a match is unpredictable.
  [[nodiscard]] static Key first_of(const Key& a, const Key& b) {
    // Bitwise, not ||/&&, and the pick by a mask rather than ?: (which g++ compiles to branches here, mispredicted
    // at every other level of a replayed path).
    const bool b_first = (b.at < a.at) | ((b.at == a.at) & (b.client > a.client));
    const std::uint64_t pick_b = 0 - static_cast<std::uint64_t>(b_first);
    return Key{a.at ^ ((a.at ^ b.at) & pick_b),
               a.client ^ ((a.client ^ b.client) & static_cast<std::uint32_t>(pick_b))};
  }

  std::size_t clients_ = 0;
  // The tournament: node n holds the winner of its subtree (node 1 the overall one); client c's leaf is
  // leaves_ + c with its pending time; leaves are padded to a power of two with clients that never wake.
  std::vector<Key> tree_ = std::vector<Key>(2);
  std::size_t leaves_ = 1;
};

}  // namespace roofsim
