#include "sim/engine/wave_fast_forward.h"

#include <doctest/doctest.h>

namespace roofsim {

namespace {

// A boundary after `waves` identical waves of 1000 fs that each read 4096 bytes and book 7 work units, with the state
// class `state` and every slot in progress class 3.
WaveFastForward::Boundary steady(std::uint64_t waves, std::uint64_t state = 1) {
  WaveFastForward::Boundary b;
  b.at_fs = 1000 * waves;
  b.state = {state, 0};
  b.slots = {0, 0, 0, 264, 0, 0, 0, 0};
  b.compared = {1000 * waves, 4096 * waves};
  b.booked = {7 * waves, 1000 * waves};
  return b;
}

}  // namespace

TEST_CASE("three boundaries of a repeating state skip every wave left but the kept ones, booking the last wave") {
  WaveFastForward ff;
  CHECK(ff.boundary(steady(1), 10).waves == 0);
  CHECK(ff.boundary(steady(2), 9).waves == 0);
  const auto skip = ff.boundary(steady(3), 8);
  CHECK(skip.waves == 8 - kKeptWaves);
  CHECK(skip.wave_fs == 1000);
  CHECK(skip.hold_fs == 1000 * (8 - kKeptWaves));
  REQUIRE(skip.booked.size() == 2);
  CHECK(skip.booked[0] == 7 * (8 - kKeptWaves));
  CHECK(skip.booked[1] == 1000 * (8 - kKeptWaves));
  CHECK(ff.skips() == 1);
  // The counters after a skip include the booked waves: three new boundaries are needed.
  CHECK(ff.boundary(steady(4), 7).waves == 0);
}

TEST_CASE("a skip bounded by the governor skips the whole waves that end within the bound, then detects afresh") {
  WaveFastForward ff;
  (void)ff.boundary(steady(1), 20);
  (void)ff.boundary(steady(2), 19);
  // 2500 fs before a governor window could decide: two waves of 1000 fs end within it, a third would not.
  const auto first = ff.boundary(steady(3), 18, 2500);
  CHECK(first.waves == 2);
  CHECK(first.hold_fs == 2000);
  REQUIRE(first.booked.size() == 2);
  CHECK(first.booked[0] == 7 * 2);
  // A bound shorter than a wave skips nothing and keeps the boundaries seen.
  WaveFastForward short_bound;
  (void)short_bound.boundary(steady(1), 20);
  (void)short_bound.boundary(steady(2), 19);
  CHECK(short_bound.boundary(steady(3), 18, 999).waves == 0);
  CHECK(short_bound.boundary(steady(4), 17).waves == 17 - kKeptWaves);
  // After the bounded skip: boundaries 4 and 5 are the first two of a new run, 6 skips again (unbounded: all but
  // the kept waves).
  CHECK(ff.boundary(steady(4), 15).waves == 0);
  CHECK(ff.boundary(steady(5), 14).waves == 0);
  CHECK(ff.boundary(steady(6), 13).waves == 13 - kKeptWaves);
  CHECK(ff.skips() == 2);
}

TEST_CASE("a state class that changed, a wave that cost more, or too few waves left skip nothing") {
  SUBCASE("the state class (a clock change) differs at the last boundary") {
    WaveFastForward ff;
    (void)ff.boundary(steady(1), 10);
    (void)ff.boundary(steady(2), 9);
    CHECK(ff.boundary(steady(3, 2), 8).waves == 0);
  }
  SUBCASE("the last wave read 1% more") {
    WaveFastForward ff;
    (void)ff.boundary(steady(1), 10);
    (void)ff.boundary(steady(2), 9);
    auto b = steady(3);
    b.compared[1] += 41;
    CHECK(ff.boundary(b, 8).waves == 0);
  }
  SUBCASE("only the kept waves are left") {
    WaveFastForward ff;
    (void)ff.boundary(steady(1), 4);
    (void)ff.boundary(steady(2), 3);
    CHECK(ff.boundary(steady(3), kKeptWaves).waves == 0);
  }
}

TEST_CASE("same_cost allows 1/256 of the larger increment, same_slots 1/16 of the slots to change class") {
  CHECK(WaveFastForward::same_cost({256, 0}, {255, 0}));
  CHECK_FALSE(WaveFastForward::same_cost({256, 0}, {254, 0}));
  CHECK_FALSE(WaveFastForward::same_cost({1, 0}, {0, 0}));
  // 264 slots: 16 may move (each counts once where it left and once where it arrived).
  CHECK(WaveFastForward::same_slots({0, 264}, {16, 248}));
  CHECK_FALSE(WaveFastForward::same_slots({0, 264}, {17, 247}));
  CHECK(increments({1, 5}, {4, 5}) == std::vector<std::uint64_t>{3, 0});
}

}  // namespace roofsim

namespace roofsim {

namespace {

// A boundary inside tiles: two lanes that have each computed `steps[i]` steps, 100 fs and 64 bytes per lane-step.
WaveFastForward::Boundary lanes_at(std::vector<std::uint64_t> steps) {
  WaveFastForward::Boundary b;
  std::uint64_t done = 0;
  for (const auto s : steps) done += s;
  b.at_fs = 100 * done;
  b.state = {1};
  b.slots = {2, 0};
  b.compared = {100 * done, 64 * done};
  b.booked = {3 * done};
  b.progress = done;
  b.lanes = std::move(steps);
  return b;
}

}  // namespace

TEST_CASE("inside tiles the cost is compared and booked per unit of progress, not per interval") {
  WaveFastForward ff;
  // Intervals of 15 and 17 lane-steps cost 1500 and 1700 fs: the same rate, which a per-interval comparison misses.
  CHECK(ff.boundary(lanes_at({8, 8}), 10, kNever, 16, 2).waves == 0);
  CHECK(ff.boundary(lanes_at({15, 16}), 9, kNever, 16, 2).waves == 0);
  const auto skip = ff.boundary(lanes_at({24, 24}), 8, kNever, 16, 2);
  CHECK(skip.waves == 8 - kKeptWaves);
  // 16 lane-steps a wave at 100 fs each, over the progress 32 of both intervals.
  CHECK(skip.wave_fs == 1600);
  CHECK(skip.hold_fs == 1600 * (8 - kKeptWaves));
  REQUIRE(skip.booked.size() == 1);
  CHECK(skip.booked[0] == 3 * 16 * (8 - kKeptWaves));
}

TEST_CASE("lanes that drift apart are not a steady state even when the total rate repeats") {
  WaveFastForward ff;
  // One lane gains 3 steps an interval on the other: 6 over two intervals, beyond a slack of 2.
  CHECK(ff.boundary(lanes_at({8, 8}), 10, kNever, 16, 2).waves == 0);
  CHECK(ff.boundary(lanes_at({14, 18}), 9, kNever, 16, 2).waves == 0);
  CHECK(ff.boundary(lanes_at({20, 28}), 8, kNever, 16, 2).waves == 0);
  CHECK(WaveFastForward::in_lockstep({8, 8}, {24, 26}, 2));
  CHECK_FALSE(WaveFastForward::in_lockstep({8, 8}, {24, 27}, 2));
}

TEST_CASE("a rate skip's counters round to nearest without overflowing the product") {
  CHECK(WaveFastForward::scaled(10, 1, 3) == 3);
  CHECK(WaveFastForward::scaled(20, 1, 3) == 7);
  CHECK(WaveFastForward::scaled(1ULL << 62, 1ULL << 20, 1ULL << 21) == 1ULL << 61);
  CHECK(WaveFastForward::same_rate({1500, 960}, 15, {1700, 1088}, 17));
  CHECK_FALSE(WaveFastForward::same_rate({1500, 960}, 15, {1800, 1088}, 17));
}

}  // namespace roofsim
