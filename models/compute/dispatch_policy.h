#pragma once
// The dispatcher's policy (DESIGN.md section 4): ops launch in program order once their inputs are produced and a
// stream is free, after the launch latency; their tiles go, in order, to the unit with the most free occupancy
// slots (ties: the lowest unit), so that waves and tails follow from the counts. Ops that are not simulated
// (collectives on a single device) finish the moment their inputs are ready and hold no stream; external ones
// (collectives of a cluster run) are reported as reached when their inputs are ready, hold no stream, and finish
// when their owner calls external_done() (the network's completion).
#include <cstdint>
#include <optional>
#include <vector>

#include "models/kernel/time_fs.h"

namespace roofsim {

struct DispatchOp {
  std::vector<std::size_t> after;  // ops that must finish first
  std::uint64_t tiles = 0;
  bool simulated = true;
  bool external = false;  // not simulated here: finishes on external_done()
};

struct TileAssignment {
  std::size_t op = 0;
  std::uint64_t tile = 0;
  std::uint64_t unit = 0;
};

class DispatchPolicy {
 public:
  DispatchPolicy(std::vector<DispatchOp> ops, std::uint64_t units, std::uint64_t occupancy, std::uint64_t streams,
                 TimeFs launch_fs);

  // Launches what may launch at `now` (ops whose inputs are done and that get a stream start their launch latency;
  // unsimulated ops finish at once).
  void advance(TimeFs now);
  // The next tile to start at `now`, if an active op has tiles left and a unit has a free slot.
  std::optional<TileAssignment> next_tile(TimeFs now);
  // A tile of `op` on `unit` finished at `now` (its slot is free).
  void tile_done(std::size_t op, std::uint64_t unit, TimeFs now);
  // Writes of `op` in flight: the op ends when its tiles are done and its writes acknowledged. write_acknowledged
  // returns true when that ended the op or started its hold (skip_tiles).
  void write_posted(std::size_t op) { ++times_[op].pending_writes; }
  bool write_acknowledged(std::size_t op, TimeFs now);
  // The next simulated op with tiles whose launch latency is over at `now` and that no tile of has started, each
  // once: the moment a memoized replay may stand in for it.
  [[nodiscard]] std::optional<std::size_t> next_starting(TimeFs now);
  // Replays `op` (returned by next_starting): its tiles count as issued and done, and it ends at `end_fs`. Its
  // record handed out its last tile at `tiles_out_fs`: until then the ops after it get no tile, as they would not
  // behind its tiles.
  void replay(std::size_t op, TimeFs end_fs, TimeFs tiles_out_fs);
  // A replay not yet ended now ends at `end_fs` and hands out its last tile at `tiles_out_fs` (its pace follows the
  // compute clock, which changed).
  void retime_replay(std::size_t op, TimeFs end_fs, TimeFs tiles_out_fs);
  // Steady-state fast-forward (sim/engine/wave_fast_forward.h): the `tiles` tiles of `op` from `first` on, which must
  // be the one just handed out, count as issued and done, and the op ends `hold_fs` after its last tile and write;
  // returns the tile to hand out in place of `first` (the one after the skipped ones).
  std::uint64_t skip_tiles(std::size_t op, std::uint64_t first, std::uint64_t tiles, TimeFs hold_fs);
  // Ops that ended a hold (skip_tiles) or a replay since the last call.
  [[nodiscard]] std::vector<std::size_t> take_held_ended();
  // Tiles in one wave: a slot on every unit.
  [[nodiscard]] std::uint64_t wave_tiles() const { return free_.size() * occupancy_; }
  [[nodiscard]] std::uint64_t tiles(std::size_t op) const { return ops_[op].tiles; }
  // True when a simulated op other than `op` has launched and not ended.
  [[nodiscard]] bool others_in_flight(std::size_t op) const;
  // The next time after `now` that something happens without a tile finishing (a launch latency, a replay ending or
  // handing out its last tile), or kNever.
  [[nodiscard]] TimeFs next_wake(TimeFs now) const;
  [[nodiscard]] bool all_done() const { return done_ops_ == ops_.size(); }
  [[nodiscard]] std::size_t done_ops() const { return done_ops_; }
  // External ops whose inputs became ready since the last call, in program order.
  [[nodiscard]] std::vector<std::size_t> take_reached();
  // An external op finished at `now` (its dependants may launch at the next advance()).
  void external_done(std::size_t op, TimeFs now);

  struct OpTimes {
    TimeFs queued_fs = kNever;  // first moment a stream was free for it while it waited for its inputs
    TimeFs launch_fs = kNever;  // inputs ready and a stream taken: its launch latency starts
    TimeFs start_fs = kNever;   // launch latency over: tiles may start
    TimeFs end_fs = kNever;     // last tile finished
    // Its latest tile handed out, in the run's time: a replay's last as its record had it; a fast-forwarded op's
    // after the waves skipped before it, which the run passed over but the op's tiles took. Once all are out, the ops
    // after it in program order get no tile before then.
    TimeFs tiles_out_fs = kNever;
    std::uint64_t issued = 0, finished = 0;
    std::uint64_t pending_writes = 0;
    TimeFs replay_end_fs = kNever;  // a memoized replay's end
    bool announced = false;         // next_starting returned it
    TimeFs hold_fs = 0;             // fast-forwarded time still to pass after the last tile and write
    bool held = false;              // the op's end waits out its hold (replay_end_fs)
    bool replayed = false;          // replay() stood in for its tiles
  };
  [[nodiscard]] const OpTimes& times(std::size_t op) const { return times_[op]; }
  // The ops that may be launched and not ended: every op before the first has ended, and no op (simulated or not)
  // from the second on has launched.
  [[nodiscard]] std::size_t first_open() const { return first_open_; }
  [[nodiscard]] std::size_t launched_end() const { return launched_end_; }
  [[nodiscard]] std::uint64_t free_slots(std::uint64_t unit) const { return free_[unit]; }

 private:
  [[nodiscard]] bool inputs_done(std::size_t op) const;
  void finish(std::size_t op, TimeFs now);

  std::vector<DispatchOp> ops_;
  std::vector<OpTimes> times_;
  // Per op, its inputs (`after`) not yet ended and the ops it is an input of: each launch pass asks every waiting
  // op whether its inputs are done, which a walk over its inputs' times would make a pass over the whole graph's edges.
  std::vector<std::size_t> inputs_left_;
  std::vector<std::vector<std::size_t>> dependants_;
  std::vector<std::uint64_t> free_;  // free slots per unit
  std::uint64_t streams_;
  std::uint64_t active_streams_ = 0;
  TimeFs launch_fs_;
  std::size_t first_waiting_ = 0;  // ops before this one have all launched
  std::size_t first_open_ = 0;     // ops before this one have all ended
  std::size_t launched_end_ = 0;   // no op from this one on (simulated or not) has launched
  std::size_t replays_open_ = 0;   // replays not yet ended
  std::size_t done_ops_ = 0;
  std::vector<std::size_t> reached_;
  std::vector<std::size_t> held_ended_;
  std::uint64_t occupancy_ = 1;
};

}  // namespace roofsim
