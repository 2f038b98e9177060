#include "models/compute/dispatch_policy.h"

#include <algorithm>
#include <stdexcept>

namespace roofsim {

DispatchPolicy::DispatchPolicy(std::vector<DispatchOp> ops, std::uint64_t units, std::uint64_t occupancy,
                               std::uint64_t streams, TimeFs launch_fs)
    : ops_(std::move(ops)),
      times_(ops_.size()),
      free_(units, occupancy),
      streams_(std::max<std::uint64_t>(streams, 1)),
      launch_fs_(launch_fs),
      occupancy_(occupancy) {
  if (units == 0 || occupancy == 0) throw std::invalid_argument("a dispatcher needs units and occupancy above 0");
  inputs_left_.resize(ops_.size());
  dependants_.resize(ops_.size());
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    for (const auto dep : ops_[i].after) {
      if (dep >= i) throw std::invalid_argument("ops must be in topological order");
      dependants_[dep].push_back(i);
    }
    inputs_left_[i] = ops_[i].after.size();
  }
}

bool DispatchPolicy::inputs_done(std::size_t op) const {
  return inputs_left_[op] == 0;
}

void DispatchPolicy::finish(std::size_t op, TimeFs now) {
  auto& t = times_[op];
  if (t.hold_fs > 0) {
    // A fast-forwarded op's skipped waves pass after its simulated ones: it ends like a replay.
    t.replay_end_fs = now + t.hold_fs;
    t.hold_fs = 0;
    t.held = true;
    ++replays_open_;
    return;
  }
  if (t.held || t.replayed) held_ended_.push_back(op);
  t.end_fs = now;
  for (const std::size_t dependant : dependants_[op]) --inputs_left_[dependant];
  ++done_ops_;
  if (ops_[op].simulated) --active_streams_;
  while (first_open_ < ops_.size() && times_[first_open_].end_fs != kNever) ++first_open_;
}

std::optional<std::size_t> DispatchPolicy::next_starting(TimeFs now) {
  for (std::size_t i = first_open_; i < launched_end_; ++i) {
    auto& t = times_[i];
    if (t.announced || !ops_[i].simulated || ops_[i].tiles == 0 || t.start_fs > now || t.end_fs != kNever ||
        t.issued != 0)
      continue;
    t.announced = true;
    return i;
  }
  return std::nullopt;
}

void DispatchPolicy::replay(std::size_t op, TimeFs end_fs, TimeFs tiles_out_fs) {
  auto& t = times_[op];
  if (t.issued != 0 || t.end_fs != kNever) throw std::logic_error("replay() of an op that has started");
  t.issued = t.finished = ops_[op].tiles;
  t.replay_end_fs = end_fs;
  t.tiles_out_fs = std::min(tiles_out_fs, end_fs);
  t.replayed = true;
  ++replays_open_;
}

void DispatchPolicy::retime_replay(std::size_t op, TimeFs end_fs, TimeFs tiles_out_fs) {
  auto& t = times_[op];
  if (!t.replayed || t.end_fs != kNever) throw std::logic_error("retime_replay() of an op not replaying");
  t.replay_end_fs = end_fs;
  t.tiles_out_fs = std::min(tiles_out_fs, end_fs);
}

std::uint64_t DispatchPolicy::skip_tiles(std::size_t op, std::uint64_t first, std::uint64_t tiles, TimeFs hold_fs) {
  auto& t = times_[op];
  if (t.issued == 0 || t.issued + tiles > ops_[op].tiles) throw std::logic_error("skip_tiles() past the op's tiles");
  if (tiles > 0 && first != t.issued - 1) throw std::logic_error("skip_tiles() from a tile not just handed out");
  const std::uint64_t next = first + tiles;
  t.issued += tiles;
  t.finished += tiles;
  t.hold_fs += hold_fs;
  // Tile `next` goes out in place of `first`, after the skipped ones (steps skipped inside tiles, tiles == 0, move no
  // hand-out: they pass inside tiles already out).
  if (tiles > 0) t.tiles_out_fs += hold_fs;
  return next;
}

std::vector<std::size_t> DispatchPolicy::take_held_ended() {
  std::vector<std::size_t> ended;
  ended.swap(held_ended_);
  return ended;
}

bool DispatchPolicy::others_in_flight(std::size_t op) const {
  for (std::size_t i = first_open_; i < launched_end_; ++i) {
    if (i != op && ops_[i].simulated && times_[i].launch_fs != kNever && times_[i].end_fs == kNever) return true;
  }
  return false;
}

void DispatchPolicy::advance(TimeFs now) {
  if (replays_open_ > 0) {
    for (std::size_t i = first_open_; i < launched_end_; ++i) {
      auto& t = times_[i];
      if (t.replay_end_fs <= now && t.end_fs == kNever) {
        --replays_open_;
        finish(i, t.replay_end_fs);
      }
    }
  }
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t i = first_waiting_; i < ops_.size(); ++i) {
      auto& t = times_[i];
      if (t.launch_fs != kNever) continue;
      const bool ready = inputs_done(i);
      if (!ops_[i].simulated) {
        if (!ready) continue;
        launched_end_ = std::max(launched_end_, i + 1);
        if (ops_[i].external) {
          t.queued_fs = t.launch_fs = t.start_fs = now;
          reached_.push_back(i);
          continue;
        }
        // Zero time on a single device: it ends when its inputs are ready.
        t.queued_fs = t.launch_fs = t.start_fs = now;
        finish(i, now);
        progress = true;
        continue;
      }
      if (active_streams_ >= streams_) break;
      if (!ready) {
        if (t.queued_fs == kNever) t.queued_fs = now;
        continue;
      }
      if (t.queued_fs == kNever) t.queued_fs = now;
      t.launch_fs = now;
      t.start_fs = now + launch_fs_;
      launched_end_ = std::max(launched_end_, i + 1);
      ++active_streams_;
      if (ops_[i].tiles == 0 && launch_fs_ == 0) {
        finish(i, now);
        progress = true;
      }
    }
    while (first_waiting_ < ops_.size() && times_[first_waiting_].launch_fs != kNever) ++first_waiting_;
  }
  // Ops without tiles end when their launch latency is over.
  for (std::size_t i = first_open_; i < launched_end_; ++i) {
    auto& t = times_[i];
    if (ops_[i].simulated && ops_[i].tiles == 0 && t.start_fs <= now && t.end_fs == kNever) {
      finish(i, t.start_fs);
      advance(now);
      return;
    }
  }
}

std::optional<TileAssignment> DispatchPolicy::next_tile(TimeFs now) {
  for (std::size_t i = first_open_; i < launched_end_; ++i) {
    auto& t = times_[i];
    if (t.start_fs > now || t.end_fs != kNever) continue;
    if (t.issued == ops_[i].tiles) {
      // Its tiles still go out in the run's time (a replay, or waves a fast-forward skipped): the ops after it wait.
      if (t.tiles_out_fs != kNever && t.tiles_out_fs > now) return std::nullopt;
      continue;
    }
    std::uint64_t best = 0;
    for (std::uint64_t u = 1; u < free_.size(); ++u) {
      if (free_[u] > free_[best]) best = u;
    }
    if (free_[best] == 0) return std::nullopt;
    --free_[best];
    // The waves skipped so far passed before this tile in the op's own time.
    t.tiles_out_fs = now + t.hold_fs;
    return TileAssignment{i, t.issued++, best};
  }
  return std::nullopt;
}

void DispatchPolicy::tile_done(std::size_t op, std::uint64_t unit, TimeFs now) {
  ++free_[unit];
  auto& t = times_[op];
  if (++t.finished == ops_[op].tiles && t.pending_writes == 0) finish(op, now);
}

bool DispatchPolicy::write_acknowledged(std::size_t op, TimeFs now) {
  auto& t = times_[op];
  if (--t.pending_writes != 0 || t.finished != ops_[op].tiles || t.end_fs != kNever || t.held) return false;
  finish(op, now);
  return true;
}

std::vector<std::size_t> DispatchPolicy::take_reached() {
  std::vector<std::size_t> reached;
  reached.swap(reached_);
  return reached;
}

void DispatchPolicy::external_done(std::size_t op, TimeFs now) {
  if (!ops_[op].external || times_[op].launch_fs == kNever || times_[op].end_fs != kNever) {
    throw std::logic_error("external_done() on an op that is not an external op in flight");
  }
  finish(op, now);
}

TimeFs DispatchPolicy::next_wake(TimeFs now) const {
  // Times not after now are left out: what is due now has run (an op whose latency is over and that has tiles left
  // has no free slot, and a tile's end wakes the dispatcher), and would hide a later time.
  TimeFs next = kNever;
  const auto consider = [&](TimeFs at) {
    if (at > now) next = std::min(next, at);
  };
  // Ops from launched_end_ on have not launched: no start, replay or hand-out yet.
  for (std::size_t i = first_open_; i < launched_end_; ++i) {
    const auto& t = times_[i];
    if (t.end_fs != kNever) continue;
    if (t.replay_end_fs != kNever) consider(t.replay_end_fs);
    if (t.tiles_out_fs != kNever) consider(t.tiles_out_fs);
    // An external op in flight waits for its owner, not for a time.
    if (t.start_fs == kNever || ops_[i].external) continue;
    if (t.issued < ops_[i].tiles || ops_[i].tiles == 0) consider(t.start_fs);
  }
  return next;
}

}  // namespace roofsim
