#include "sim/engine/wave_fast_forward.h"

#include <doctest/doctest.h>

#include <array>

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

TEST_CASE("four boundaries of a repeating state skip every wave left but the kept ones, booking the last wave") {
  WaveFastForward ff;
  CHECK(ff.boundary(steady(1), 11).waves == 0);
  CHECK(ff.boundary(steady(2), 10).waves == 0);
  CHECK(ff.boundary(steady(3), 9).waves == 0);  // two waves that cost the same are not enough
  const auto skip = ff.boundary(steady(4), 8);
  CHECK(skip.waves == 8 - kKeptWaves);
  CHECK(skip.wave_fs == 1000);
  CHECK(skip.hold_fs == 1000 * (8 - kKeptWaves));
  REQUIRE(skip.booked.size() == 2);
  CHECK(skip.booked[0] == 7 * (8 - kKeptWaves));
  CHECK(skip.booked[1] == 1000 * (8 - kKeptWaves));
  // The counters after a skip include the booked waves: four new boundaries are needed.
  CHECK(ff.boundary(steady(5), 7).waves == 0);
}

TEST_CASE("waves that speed up wave by wave skip nothing while two in a row cost the same") {
  // A stream's waves fall out of lockstep over its first waves and then run faster: the first wave here takes 1100 fs
  // and the next two 1000 fs each; two equal waves would skip at the third boundary, the drift before them does not.
  WaveFastForward ff;
  auto shifted = [](std::uint64_t waves) {
    auto b = steady(waves);
    b.at_fs += 100;
    b.compared[0] += 100;
    return b;
  };
  (void)ff.boundary(steady(1), 11);
  (void)ff.boundary(shifted(2), 10);
  (void)ff.boundary(shifted(3), 9);
  CHECK(ff.boundary(shifted(4), 8).waves == 0);               // 1100, 1000, 1000
  CHECK(ff.boundary(shifted(5), 7).waves == 7 - kKeptWaves);  // 1000, 1000, 1000
}

TEST_CASE("waves whose boundaries jitter skip in windows of waves once the windows cost the same") {
  // A wave boundary is read when a wave's first slot frees, so its jitter lengthens one wave and shortens the next:
  // here 1100, 900, 1100, ... fs. No two waves in a row cost the same, while every two waves take 2000 fs.
  const auto jittered = [](std::uint64_t waves) {
    auto b = steady(waves);
    const std::uint64_t late = waves % 2 == 1 ? 100 : 0;
    b.at_fs += late;
    b.compared[0] += late;
    b.mark = waves;
    return b;
  };
  WaveFastForward ff;
  for (std::uint64_t w = 1; w <= 6; ++w) CHECK(ff.boundary(jittered(w), 20 - w).waves == 0);
  // Boundaries 1, 3, 5 and 7: three windows of two waves that cost the same.
  const auto skip = ff.boundary(jittered(7), 14);
  CHECK(skip.stride == 2);
  CHECK(skip.waves == 14 - kKeptWaves);  // six windows
  CHECK(skip.wave_fs == 2000);
  CHECK(skip.hold_fs == 6 * 2000);
  CHECK(skip.window_mark == 5);  // the last window's tiles are those after boundary 5
  REQUIRE(skip.booked.size() == 2);
  CHECK(skip.booked[0] == 6 * 2 * 7);
  CHECK(skip.booked[1] == 6 * 2 * 1000);
  // With an odd number of waves left, the windows that fit: one wave more is simulated.
  WaveFastForward odd;
  for (std::uint64_t w = 1; w <= 6; ++w) (void)odd.boundary(jittered(w), 20 - w);
  CHECK(odd.boundary(jittered(7), 15).waves == 12);
}

TEST_CASE("windows that cost the same while the DRAM's backlog fills skip nothing") {
  // Every wave moves 4096 DRAM bytes and takes 1000 fs; the backlog grows by 600 bytes a wave, within a quarter of
  // itself from one boundary to the next but 15 % of the bytes moved over the windows: a queue filling, whose waves
  // will slow down once it is full.
  const auto filling = [](std::uint64_t waves, std::uint64_t growth) {
    auto b = steady(waves);
    b.dram_moved_bytes = 4096 * waves;
    b.dram_backlog_bytes = 8192 + growth * waves;
    return b;
  };
  WaveFastForward ff;
  for (std::uint64_t w = 1; w <= 8; ++w) CHECK(ff.boundary(filling(w, 600), 30 - w).waves == 0);
  // The same waves with a backlog that hovers (a few bytes either way) skip at the fourth boundary.
  WaveFastForward steady_queue;
  for (std::uint64_t w = 1; w <= 3; ++w)
    CHECK(steady_queue.boundary(filling(w, w % 2 == 0 ? 8 : 0), 30 - w).waves == 0);
  CHECK(steady_queue.boundary(filling(4, 8), 26).waves == 26 - kKeptWaves);
}

TEST_CASE("a skip bounded by the governor skips the whole waves that end within the bound, then detects afresh") {
  WaveFastForward ff;
  (void)ff.boundary(steady(1), 21);
  (void)ff.boundary(steady(2), 20);
  (void)ff.boundary(steady(3), 19);
  // 2500 fs before a governor window could decide: two waves of 1000 fs end within it, a third would not.
  const auto first = ff.boundary(steady(4), 18, 2500);
  CHECK(first.waves == 2);
  CHECK(first.hold_fs == 2000);
  REQUIRE(first.booked.size() == 2);
  CHECK(first.booked[0] == 7 * 2);
  // A bound shorter than a wave skips nothing and keeps the boundaries seen.
  WaveFastForward short_bound;
  (void)short_bound.boundary(steady(1), 21);
  (void)short_bound.boundary(steady(2), 20);
  (void)short_bound.boundary(steady(3), 19);
  CHECK(short_bound.boundary(steady(4), 18, 999).waves == 0);
  CHECK(short_bound.boundary(steady(5), 17).waves == 17 - kKeptWaves);
  // After the bounded skip: boundaries 5 to 7 are the first three of a new run, 8 skips again (unbounded: all but
  // the kept waves).
  CHECK(ff.boundary(steady(5), 15).waves == 0);
  CHECK(ff.boundary(steady(6), 14).waves == 0);
  CHECK(ff.boundary(steady(7), 13).waves == 0);
  CHECK(ff.boundary(steady(8), 12).waves == 12 - kKeptWaves);
}

TEST_CASE("a state class that changed, a wave that cost more, or too few waves left skip nothing") {
  SUBCASE("the state class (a clock change) differs at the last boundary") {
    WaveFastForward ff;
    (void)ff.boundary(steady(1), 11);
    (void)ff.boundary(steady(2), 10);
    (void)ff.boundary(steady(3), 9);
    CHECK(ff.boundary(steady(4, 2), 8).waves == 0);
  }
  SUBCASE("the last wave read 1% more") {
    WaveFastForward ff;
    (void)ff.boundary(steady(1), 11);
    (void)ff.boundary(steady(2), 10);
    (void)ff.boundary(steady(3), 9);
    auto b = steady(4);
    b.compared[1] += 41;
    CHECK(ff.boundary(b, 8).waves == 0);
  }
  SUBCASE("only the kept waves are left") {
    WaveFastForward ff;
    (void)ff.boundary(steady(1), 5);
    (void)ff.boundary(steady(2), 4);
    (void)ff.boundary(steady(3), 3);
    CHECK(ff.boundary(steady(4), kKeptWaves).waves == 0);
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

// A boundary inside tiles: lanes that have each computed `steps[i]` steps, after `work` units of work done at 100 fs
// and 64 SRAM bytes and 3 DRAM bytes per unit, booking 5 per unit.
WaveFastForward::Boundary lanes_at(std::vector<std::uint64_t> steps, std::uint64_t work, std::uint64_t state = 1) {
  WaveFastForward::Boundary b;
  b.at_fs = 100 * work;
  b.state = {state};
  b.slots = {static_cast<std::uint64_t>(steps.size()), 0};
  b.compared = {100 * work, 64 * work};
  b.bursty = {3 * work};
  b.booked = {5 * work};
  b.progress = work;
  b.lanes = std::move(steps);
  return b;
}

}  // namespace

TEST_CASE("inside tiles a window is steady when its two intervals cost the same per unit of work, not per interval") {
  WaveFastForward ff;
  WaveFastForward::Window w;
  // Intervals of 150 and 170 units of work (the boundaries cut the steps in flight differently): the same rate.
  CHECK_FALSE(ff.steady_window(lanes_at({8, 8}, 160), 2, w));
  CHECK_FALSE(ff.steady_window(lanes_at({16, 15}, 310), 2, w));
  REQUIRE(ff.steady_window(lanes_at({24, 24}, 480), 2, w));
  CHECK(w.window_fs == 100 * 320);
  CHECK(w.progress == 320);
  REQUIRE(w.booked.size() == 1);
  CHECK(w.booked[0] == 5 * 320);
  CHECK(w.lane_steps == std::vector<std::uint64_t>{16, 16});
  // The caller books a skip of 1000 units of work at the window's rate.
  CHECK(WaveFastForward::scaled(w.window_fs, 1000, w.progress) == 100 * 1000);
}

TEST_CASE("inside tiles a change of cost per unit of work, of state, or of pace is not a steady window") {
  WaveFastForward::Window w;
  {
    // The second interval is 2% slower per unit of work.
    WaveFastForward ff;
    (void)ff.steady_window(lanes_at({8, 8}, 160), 2, w);
    (void)ff.steady_window(lanes_at({16, 16}, 320), 2, w);
    auto b = lanes_at({24, 24}, 480);
    b.at_fs += 100 * 160 / 50;
    b.compared[0] = b.at_fs;
    CHECK_FALSE(ff.steady_window(b, 2, w));
  }
  {
    // The state class changed (a clock change, a tile that ended).
    WaveFastForward ff;
    (void)ff.steady_window(lanes_at({8, 8}, 160), 2, w);
    (void)ff.steady_window(lanes_at({16, 16}, 320), 2, w);
    CHECK_FALSE(ff.steady_window(lanes_at({24, 24}, 480, 2), 2, w));
  }
  {
    // The misses per unit of work doubled (a wave's first steps): beyond kBurstyTolerance.
    WaveFastForward ff;
    (void)ff.steady_window(lanes_at({8, 8}, 160), 2, w);
    (void)ff.steady_window(lanes_at({16, 16}, 320), 2, w);
    auto b = lanes_at({24, 24}, 480);
    b.bursty[0] += 3 * 160;
    CHECK_FALSE(ff.steady_window(b, 2, w));
  }
  {
    // A lane gains 3 steps an interval on the other: 6 over the window, beyond the slack of 2 (its buffers).
    WaveFastForward ff;
    (void)ff.steady_window(lanes_at({8, 8}, 160), 2, w);
    (void)ff.steady_window(lanes_at({14, 17}, 320), 2, w);
    CHECK_FALSE(ff.steady_window(lanes_at({20, 26}, 480), 2, w));
  }
}

TEST_CASE("after a skip inside tiles the boundaries move by what it added, and the next boundary may match again") {
  WaveFastForward ff;
  WaveFastForward::Window w;
  (void)ff.steady_window(lanes_at({8, 8}, 160), 2, w);
  (void)ff.steady_window(lanes_at({16, 16}, 320), 2, w);
  REQUIRE(ff.steady_window(lanes_at({24, 24}, 480), 2, w));
  // 100 steps of each lane, 2000 units of work, skipped at the third boundary: its counters jump, its time does not.
  auto after = lanes_at({124, 124}, 2480);
  after.at_fs = 100 * 480;
  after.compared[0] = after.at_fs;
  ff.skipped_to(after);
  // The next interval, simulated, costs what the ones before it cost: a window at once, without the skipped work.
  auto next = lanes_at({132, 132}, 2640);
  next.at_fs = 100 * 640;
  next.compared[0] = next.at_fs;
  REQUIRE(ff.steady_window(next, 2, w));
  CHECK(w.window_fs == 100 * 320);
  CHECK(w.progress == 320);
  CHECK(w.booked[0] == 5 * 320);
  CHECK(w.lane_steps == std::vector<std::uint64_t>{16, 16});
}

TEST_CASE("lanes in lockstep, rates per unit of work and scaled counters") {
  CHECK(WaveFastForward::in_lockstep({8, 8}, {24, 26}, 2));
  CHECK_FALSE(WaveFastForward::in_lockstep({8, 8}, {24, 27}, 2));
  CHECK(WaveFastForward::same_rate({1500, 960}, 15, {1700, 1088}, 17));
  CHECK_FALSE(WaveFastForward::same_rate({1500, 960}, 15, {1800, 1088}, 17));
  CHECK(WaveFastForward::same_rate({1500}, 15, {1800}, 17, kBurstyTolerance) == false);
  CHECK(WaveFastForward::same_rate({1500}, 15, {1720}, 17, kBurstyTolerance));
  CHECK(WaveFastForward::scaled(10, 1, 3) == 3);
  CHECK(WaveFastForward::scaled(20, 1, 3) == 7);
  CHECK(WaveFastForward::scaled(1ULL << 62, 1ULL << 20, 1ULL << 21) == 1ULL << 61);
}

TEST_CASE("inside tiles a skip takes whole buffers of steps that fit each lane's kept steps and the governor's bound") {
  // Two lanes that each made 16 steps over a 1600 fs window: 100 fs a step.
  WaveFastForward::Window window;
  window.window_fs = 1600;
  window.lane_steps = {16, 16};
  using Steps = std::vector<std::uint32_t>;
  // The lane with 100 steps left keeps 4: 96 steps, 9600 fs; in whole buffers of 8: 96.
  CHECK(WaveFastForward::steps_to_skip(window, {100, 200}, {}, 4, 8, kNever) == Steps{96, 96});
  // 99 left: 95 steps, rounded down to 88.
  CHECK(WaveFastForward::steps_to_skip(window, {99, 200}, {}, 4, 8, kNever) == Steps{88, 88});
  // The governor may decide in 2000 fs: 20 steps, 16 of them in whole buffers.
  CHECK(WaveFastForward::steps_to_skip(window, {100, 200}, {}, 4, 8, 2000) == Steps{16, 16});
  // A lane with no more than its kept steps left, a window without progress: nothing.
  CHECK(WaveFastForward::steps_to_skip(window, {4, 200}, {}, 4, 8, kNever) == Steps{0, 0});
  window.lane_steps = {0, 0};
  CHECK(WaveFastForward::steps_to_skip(window, {100, 200}, {}, 4, 8, kNever) == Steps{0, 0});
}

TEST_CASE("inside tiles lanes of two paces skip the same time, each group at its own pace") {
  // A partial wave: lanes 0 and 1 share a unit and made 16 steps over the 1600 fs window, lane 2 has a unit to itself
  // and made 28 (100 fs a step against 57).
  WaveFastForward::Window window;
  window.window_fs = 1600;
  window.lane_steps = {16, 16, 28};
  using Steps = std::vector<std::uint32_t>;
  const std::vector<std::uint32_t> groups = {1, 1, 0};
  // Lane 2 bounds the time: 200 - 4 steps at 28 per 1600 fs, 11200 fs; lanes 0 and 1 make 112 steps in it.
  CHECK(WaveFastForward::steps_to_skip(window, {300, 300, 200}, groups, 4, 8, kNever) == Steps{112, 112, 192});
  // The slow lanes bound it: 100 - 4 steps, 9600 fs, in which lane 2 makes 168.
  CHECK(WaveFastForward::steps_to_skip(window, {100, 100, 300}, groups, 4, 8, kNever) == Steps{96, 96, 168});
  // A time in which the slow group would skip less than a buffer: no group skips.
  CHECK(WaveFastForward::steps_to_skip(window, {300, 300, 300}, groups, 4, 8, 700) == Steps{0, 0, 0});
  // Lockstep is judged within a group: the fast lane may pull ahead of the slow ones by any number of steps.
  CHECK(WaveFastForward::in_lockstep({8, 8, 8}, {24, 25, 36}, 2, groups));
  CHECK_FALSE(WaveFastForward::in_lockstep({8, 8, 8}, {24, 25, 36}, 2));
  CHECK_FALSE(WaveFastForward::in_lockstep({8, 8, 8}, {24, 27, 36}, 2, groups));
}

TEST_CASE("inside tiles only the skipped steps that allocate twice a cache's capacity pass through its tags") {
  // Two lanes, 32 lane-steps over the window, 4096 bytes missed at level 0: a step of the skip (one step of each
  // lane) allocates 4096 x 2 / 32 = 256 bytes there.
  WaveFastForward::Window window;
  window.lane_steps = {16, 16};
  window.bursty = {4096};
  // A 1024-byte level: 2048 / 256 = 8 steps before the end pass through the tags.
  CHECK(WaveFastForward::first_step_through_tags(window, 2, 100, {1024}) == 92);
  // A level larger than the skip allocates: every step.
  CHECK(WaveFastForward::first_step_through_tags(window, 2, 100, {1 << 20}) == 0);
  // A level without tags counts for nothing; the smallest need of the others wins.
  CHECK(WaveFastForward::first_step_through_tags(window, 2, 100, {0}) == 100);
  window.bursty = {4096, 512};
  CHECK(WaveFastForward::first_step_through_tags(window, 2, 100, {1024, 1024}) == 36);
  // A level that missed nothing over the window: its contents are not known to turn over, so every step.
  window.bursty = {4096, 0};
  CHECK(WaveFastForward::first_step_through_tags(window, 2, 100, {1024, 1024}) == 0);
}

TEST_CASE("a skipped unit's busy and waiting time fit in the time booked for it, in their own proportions") {
  std::array<TimeFs, 2> waits = {100, 0};
  TimeFs busy = 700;
  WaveFastForward::fit_unit_time(1000, busy, waits);  // 800 fits in 1000: unchanged
  CHECK(busy == 700);
  CHECK(waits[0] == 100);
  // A window that counted phases issued before its end: 1100 + 300 + 100 scaled into 1000.
  busy = 1100;
  waits = {300, 100};
  WaveFastForward::fit_unit_time(1000, busy, waits);
  CHECK(busy == 733);  // 1100 * 1000 / 1500, rounded down
  CHECK(waits[0] == 200);
  CHECK(waits[1] == 66);
  CHECK(busy + waits[0] + waits[1] <= 1000);
}

}  // namespace roofsim

namespace roofsim {

TEST_CASE("DRAM backlogs are alike within kBurstyTolerance of the bytes moved, or a quarter of the larger") {
  // A nearly idle DRAM: 0 or 44 KiB waiting at boundaries 4 MiB of traffic apart are one state.
  CHECK(WaveFastForward::steady_backlog(0, 45056, 4 << 20));
  CHECK(WaveFastForward::steady_backlog(45056, 0, 4 << 20));
  // The same bytes with little traffic between the boundaries: the next interval inherits the difference.
  CHECK_FALSE(WaveFastForward::steady_backlog(0, 45056, 1 << 20));
  CHECK(WaveFastForward::steady_backlog(0, 32768, 1 << 20));
  // A saturated DRAM: backlogs of megabytes within a quarter of the larger, whatever moved.
  CHECK(WaveFastForward::steady_backlog(3 << 20, 4 << 20, 0));
  CHECK_FALSE(WaveFastForward::steady_backlog(2 << 20, 4 << 20, 0));
  CHECK(WaveFastForward::steady_backlog(0, 0, 0));
}

TEST_CASE("a DRAM backlog that comes and goes by a few chunks keeps a steady window, one that builds up does not") {
  WaveFastForward::Window w;
  const auto with_backlog = [](std::vector<std::uint64_t> steps, std::uint64_t work, std::uint64_t backlog_bytes) {
    auto b = lanes_at(std::move(steps), work);
    b.dram_moved_bytes = 3 * work;
    b.dram_backlog_bytes = backlog_bytes;
    return b;
  };
  {
    // 480 DRAM bytes an interval: a backlog 15 bytes apart is within 1/32 of them.
    WaveFastForward ff;
    (void)ff.steady_window(with_backlog({8, 8}, 160, 0), 2, w);
    (void)ff.steady_window(with_backlog({16, 16}, 320, 15), 2, w);
    CHECK(ff.steady_window(with_backlog({24, 24}, 480, 0), 2, w));
  }
  {
    WaveFastForward ff;
    (void)ff.steady_window(with_backlog({8, 8}, 160, 0), 2, w);
    (void)ff.steady_window(with_backlog({16, 16}, 320, 15), 2, w);
    CHECK_FALSE(ff.steady_window(with_backlog({24, 24}, 480, 40), 2, w));
  }
  {
    // The wave detector alike: 4096 bytes a wave, a backlog that grew by a wave's bytes.
    WaveFastForward ff;
    auto b = steady(1);
    b.dram_moved_bytes = 4096;
    (void)ff.boundary(b, 10);
    b = steady(2);
    b.dram_moved_bytes = 2 * 4096;
    (void)ff.boundary(b, 9);
    b = steady(3);
    b.dram_moved_bytes = 3 * 4096;
    b.dram_backlog_bytes = 4096;
    CHECK(ff.boundary(b, 8).waves == 0);
  }
}

}  // namespace roofsim

namespace roofsim {

namespace {

// lanes_at in epoch `epoch` (the tiles done, the clock's changes).
WaveFastForward::Boundary lanes_in(std::vector<std::uint64_t> steps, std::uint64_t work, std::uint64_t epoch,
                                   std::uint64_t state = 1) {
  auto b = lanes_at(std::move(steps), work, state);
  b.epoch = {epoch};
  return b;
}

// A window seen steady in epoch 0, then the boundary that starts epoch 1.
void seen_steady_then_new_epoch(WaveFastForward& ff, WaveFastForward::Window& w) {
  (void)ff.steady_window(lanes_in({8, 8}, 160, 0), 2, w);
  (void)ff.steady_window(lanes_in({16, 16}, 320, 0), 2, w);
  REQUIRE(ff.steady_window(lanes_in({24, 24}, 480, 0), 2, w));
  (void)ff.steady_window(lanes_in({4, 4}, 560, 1), 2, w);
}

}  // namespace

TEST_CASE("in a new epoch one interval that repeats the window seen steady in its state class is a steady window") {
  WaveFastForward::Window w;
  WaveFastForward ff;
  (void)ff.steady_window(lanes_in({8, 8}, 160, 0), 2, w);
  (void)ff.steady_window(lanes_in({16, 16}, 320, 0), 2, w);
  REQUIRE(ff.steady_window(lanes_in({24, 24}, 480, 0), 2, w));
  // The next tiles start (a new epoch): the interval across the change is not one, the first inside the epoch is.
  CHECK_FALSE(ff.steady_window(lanes_in({4, 4}, 560, 1), 2, w));
  REQUIRE(ff.steady_window(lanes_in({12, 12}, 720, 1), 2, w));
  // Booked at that interval's rates.
  CHECK(w.window_fs == 100 * 160);
  CHECK(w.progress == 160);
  CHECK(w.booked == std::vector<std::uint64_t>{5 * 160});
  CHECK(w.lane_steps == std::vector<std::uint64_t>{8, 8});
}

TEST_CASE("in a new epoch two intervals whose cuts jitter about the window seen repeat it together") {
  WaveFastForward::Window w;
  WaveFastForward ff;
  seen_steady_then_new_epoch(ff, w);
  // 160 units of work each, the first 0.5% slower and the second 0.5% faster than the window seen: neither repeats
  // it alone (1/256), nor do they repeat each other, but the two together take the window's time.
  auto b = lanes_in({12, 12}, 720, 1);
  b.at_fs += 80;
  b.compared[0] += 80;
  CHECK_FALSE(ff.steady_window(b, 2, w));
  REQUIRE(ff.steady_window(lanes_in({20, 20}, 880, 1), 2, w));
  CHECK(w.window_fs == 100 * 320);
  CHECK(w.progress == 320);
  CHECK(w.lane_steps == std::vector<std::uint64_t>{16, 16});
  // Without the window seen, the same two intervals are no steady window.
  WaveFastForward fresh;
  (void)fresh.steady_window(lanes_in({4, 4}, 560, 1), 2, w);
  auto c = lanes_in({12, 12}, 720, 1);
  c.at_fs += 80;
  c.compared[0] += 80;
  (void)fresh.steady_window(c, 2, w);
  CHECK_FALSE(fresh.steady_window(lanes_in({20, 20}, 880, 1), 2, w));
}

TEST_CASE("in a new epoch an interval at another cost, pace or state class than the window seen waits for two") {
  WaveFastForward::Window w;
  const auto seen_steady = [&w](WaveFastForward& ff) { seen_steady_then_new_epoch(ff, w); };
  {
    // 2% slower per unit of work (the wave's first steps wait on their operands).
    WaveFastForward ff;
    seen_steady(ff);
    auto b = lanes_in({12, 12}, 720, 1);
    b.at_fs += 100 * 160 / 50;
    b.compared[0] = b.at_fs;
    CHECK_FALSE(ff.steady_window(b, 2, w));
  }
  {
    // Twice the misses per unit of work.
    WaveFastForward ff;
    seen_steady(ff);
    auto b = lanes_in({12, 12}, 720, 1);
    b.bursty[0] += 3 * 160;
    CHECK_FALSE(ff.steady_window(b, 2, w));
  }
  {
    // Lanes at twice the steps for the same work: beyond the slack of 2.
    WaveFastForward ff;
    seen_steady(ff);
    CHECK_FALSE(ff.steady_window(lanes_in({20, 20}, 720, 1), 2, w));
  }
  {
    // Another state class (the clock moved to a state not seen steady): two intervals as before.
    WaveFastForward ff;
    seen_steady(ff);
    (void)ff.steady_window(lanes_in({12, 12}, 720, 2, 2), 2, w);
    CHECK_FALSE(ff.steady_window(lanes_in({20, 20}, 880, 2, 2), 2, w));
    CHECK(ff.steady_window(lanes_in({28, 28}, 1040, 2, 2), 2, w));
  }
}

TEST_CASE("whole waves in another epoch (a clock change between them) skip nothing") {
  WaveFastForward ff;
  (void)ff.boundary(steady(1), 10);
  (void)ff.boundary(steady(2), 9);
  auto b = steady(3);
  b.epoch = {1};
  CHECK(ff.boundary(b, 8).waves == 0);
}

TEST_CASE("a whole-wave skip stands when its tiles' touches miss what it books at every level with tags") {
  // Booked 1000 and 640 bytes of misses; the touches missed 1020 (2%) and 640: within 1/32.
  CHECK(WaveFastForward::misses_agree({1000, 640}, {1020, 640}, {4096, 1 << 20}));
  // A cache still filling: the skipped tiles hit what the waves before them missed (640 booked, 64 touched).
  CHECK_FALSE(WaveFastForward::misses_agree({1000, 640}, {1000, 64}, {4096, 1 << 20}));
  // A level without tags (a scratchpad) is not compared.
  CHECK(WaveFastForward::misses_agree({1000, 640}, {0, 640}, {0, 1 << 20}));
  CHECK(WaveFastForward::misses_agree({0, 0}, {0, 0}, {4096, 4096}));
  // A skip inside tiles holds its steps to kSkipMissTolerance: 2% apart is too far, 0.5% is not.
  CHECK_FALSE(WaveFastForward::misses_agree({1000, 640}, {1020, 640}, {4096, 1 << 20}, kSkipMissTolerance));
  CHECK(WaveFastForward::misses_agree({1000, 640}, {1005, 640}, {4096, 1 << 20}, kSkipMissTolerance));
}

}  // namespace roofsim
