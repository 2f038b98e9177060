#include <doctest/doctest.h>

#include "models/compute/dispatch_policy.h"

using namespace roofsim;

namespace {
std::vector<TileAssignment> drain(DispatchPolicy& policy, TimeFs now) {
  std::vector<TileAssignment> out;
  policy.advance(now);
  while (const auto a = policy.next_tile(now)) out.push_back(*a);
  return out;
}
}  // namespace

TEST_CASE("tiles go breadth-first: every unit gets one before any gets a second") {
  DispatchPolicy policy({DispatchOp{{}, 10, true}}, 4, 2, 1, 0);
  const auto first = drain(policy, 0);
  REQUIRE(first.size() == 8);
  for (std::uint64_t i = 0; i < 4; ++i) CHECK(first[i].unit == i);
  for (std::uint64_t i = 4; i < 8; ++i) CHECK(first[i].unit == i - 4);
  for (std::uint64_t i = 0; i < 8; ++i) CHECK(first[i].tile == i);
  // The two remaining tiles wait for free slots.
  policy.tile_done(0, 2, 100);
  const auto next = drain(policy, 100);
  REQUIRE(next.size() == 1);
  CHECK(next[0].unit == 2);
  CHECK(next[0].tile == 8);
}

TEST_CASE("an op launches after its inputs are done plus the launch latency") {
  DispatchPolicy policy({DispatchOp{{}, 1, true}, DispatchOp{{0}, 1, true}}, 2, 1, 4, 50);
  policy.advance(0);
  CHECK(policy.times(0).launch_fs == 0);
  CHECK(policy.times(0).start_fs == 50);
  CHECK(policy.next_wake(0) == 50);
  CHECK(drain(policy, 10).empty());
  const auto a = drain(policy, 50);
  REQUIRE(a.size() == 1);
  CHECK(a[0].op == 0);
  // The dependent op waits although streams are free.
  CHECK(policy.times(1).launch_fs == kNever);
  CHECK(policy.times(1).queued_fs == 0);
  policy.tile_done(0, a[0].unit, 300);
  CHECK(policy.times(0).end_fs == 300);
  policy.advance(300);
  CHECK(policy.times(1).launch_fs == 300);
  CHECK(policy.times(1).start_fs == 350);
}

TEST_CASE("independent ops overlap up to the number of streams") {
  std::vector<DispatchOp> ops(3, DispatchOp{{}, 1, true});
  DispatchPolicy policy(ops, 8, 1, 2, 0);
  const auto a = drain(policy, 0);
  CHECK(a.size() == 2);
  CHECK(policy.times(2).launch_fs == kNever);
  policy.tile_done(0, a[0].unit, 10);
  const auto b = drain(policy, 10);
  REQUIRE(b.size() == 1);
  CHECK(b[0].op == 2);
}

TEST_CASE("an unsimulated op (a collective on one device) ends when its inputs are ready and takes no stream") {
  DispatchPolicy policy({DispatchOp{{}, 1, true}, DispatchOp{{0}, 0, false}, DispatchOp{{1}, 1, true}}, 2, 1, 1, 0);
  const auto a = drain(policy, 0);
  REQUIRE(a.size() == 1);
  policy.tile_done(0, a[0].unit, 70);
  const auto b = drain(policy, 70);
  CHECK(policy.times(1).end_fs == 70);
  REQUIRE(b.size() == 1);
  CHECK(b[0].op == 2);
  policy.tile_done(2, b[0].unit, 90);
  CHECK(policy.all_done());
}

TEST_CASE("an op ends when its last tile has left and its last write is acknowledged, whichever is later") {
  DispatchPolicy policy({DispatchOp{{}, 1, true}, DispatchOp{{0}, 1, true}}, 1, 1, 1, 0);
  const auto a = drain(policy, 0);
  REQUIRE(a.size() == 1);
  policy.write_posted(0);
  policy.tile_done(0, 0, 100);
  CHECK(policy.times(0).end_fs == kNever);
  CHECK(policy.free_slots(0) == 1);  // the slot is free while the write is in flight
  CHECK(policy.write_acknowledged(0, 250));
  CHECK(policy.times(0).end_fs == 250);
  policy.advance(250);
  CHECK(policy.times(1).launch_fs == 250);
}

TEST_CASE("an op launched beside a replay gets no tile before the replay's last tile would have gone out") {
  // Two independent ops on two streams: op 0 is replayed from a record whose last tile went out 600 fs after its
  // start; op 1, after it in program order, would have waited behind those tiles.
  DispatchPolicy policy({DispatchOp{{}, 8, true}, DispatchOp{{}, 4, true}}, 2, 1, 2, 0);
  policy.advance(0);
  REQUIRE(policy.next_starting(0) == std::optional<std::size_t>{0});
  policy.replay(0, 1000, 600);
  CHECK(drain(policy, 0).empty());
  CHECK(drain(policy, 599).empty());
  CHECK(policy.next_wake(0) == 600);
  const auto at_out = drain(policy, 600);
  REQUIRE(at_out.size() == 2);
  CHECK(at_out[0].op == 1);
  // Retimed (the clock changed), the hand-out moves with it.
  DispatchPolicy slower({DispatchOp{{}, 8, true}, DispatchOp{{}, 4, true}}, 2, 1, 2, 0);
  slower.advance(0);
  REQUIRE(slower.next_starting(0) == std::optional<std::size_t>{0});
  slower.replay(0, 1000, 600);
  slower.retime_replay(0, 1500, 900);
  CHECK(drain(slower, 600).empty());
  CHECK(slower.next_wake(600) == 900);
  CHECK(drain(slower, 900).size() == 2);
}

TEST_CASE("after a fast-forward, the ops behind wait out the skipped waves before the last tile goes out") {
  // Op 0 has 10 tiles on 2 units of one slot. At the second wave's first tile (100 fs) 4 tiles, two waves taking
  // 500 fs, are skipped. Its last tile then goes out at 300 fs in the run, at 800 in the op's own time.
  DispatchPolicy policy({DispatchOp{{}, 10, true}, DispatchOp{{}, 1, true}}, 2, 1, 2, 0);
  const auto first = drain(policy, 0);
  REQUIRE(first.size() == 2);
  policy.tile_done(0, first[0].unit, 100);
  policy.tile_done(0, first[1].unit, 100);
  policy.advance(100);
  const auto boundary = policy.next_tile(100);
  REQUIRE(boundary);
  CHECK(boundary->tile == 2);
  CHECK(policy.skip_tiles(0, 2, 4, 500) == 6);
  const auto beside = policy.next_tile(100);
  REQUIRE(beside);
  CHECK(beside->tile == 7);
  policy.tile_done(0, boundary->unit, 300);
  policy.tile_done(0, beside->unit, 300);
  const auto last = drain(policy, 300);
  REQUIRE(last.size() == 2);
  CHECK(last[1].op == 0);
  CHECK(last[1].tile == 9);
  CHECK(policy.times(0).tiles_out_fs == 800);
  policy.tile_done(0, last[0].unit, 310);
  // A slot is free, but op 1's tile waits for the skipped waves.
  CHECK(drain(policy, 310).empty());
  CHECK(policy.next_wake(310) == 800);
  const auto behind = drain(policy, 800);
  REQUIRE(behind.size() == 1);
  CHECK(behind[0].op == 1);
}
