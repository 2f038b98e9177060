#include "sim/engine/held_time.h"

#include <doctest/doctest.h>

#include <stdexcept>

namespace roofsim {

// An op simulated for 100 fs skips twice: 30 fs of waves at 20 and 10 fs at 60. The simulation runs its tiles to 100
// and then the hold, 100 to 140; on its own time the op runs 0-20, the first skip's waves 20-50, 20-60 of the
// simulation at 50-90, the second skip's waves 90-100, 60-100 of the simulation at 100-140, then what follows the hold.
TEST_CASE("a fast-forwarded op's own time puts each skip's hold where it skipped") {
  const HeldTime held({{20, 30}, {60, 10}}, 100, 150);
  const auto& p = held.pieces();
  REQUIRE(p.size() == 6);
  const TimeFs expected[6][3] = {{0, 0, 20}, {100, 20, 30}, {20, 50, 40}, {130, 90, 10}, {60, 100, 40}, {140, 140, 10}};
  for (std::size_t i = 0; i < p.size(); ++i) {
    CAPTURE(i);
    CHECK(p[i].sim_fs == expected[i][0]);
    CHECK(p[i].own_fs == expected[i][1]);
    CHECK(p[i].length_fs == expected[i][2]);
  }
}

TEST_CASE("a clock course moves with its pieces onto the op's own time") {
  // Simulated: 1 GHz to 70, 2 GHz for the rest of the tiles (70-100), 1 GHz over the hold (100-130).
  const HeldTime held({{50, 30}}, 100, 130);
  const auto own = held.own_course({{70, 1e9}, {30, 2e9}, {30, 1e9}});
  // Own time: 0-50 at 1 GHz, the hold's 30 at 1 GHz (merged), 50-70 of the simulation at 1 GHz (merged), then 30 at
  // 2 GHz: the clock step the simulated tail saw comes at the op's end.
  REQUIRE(own.size() == 2);
  CHECK(own[0].duration_fs == 100);
  CHECK(own[0].clock_hz == 1e9);
  CHECK(own[1].duration_fs == 30);
  CHECK(own[1].clock_hz == 2e9);
}

TEST_CASE("a power profile's low tail drawn before the hold ends the op on its own time") {
  // Simulated 0-100 of tiles: 0-80 spends 0.6 of the energy evenly, the tail 80-100 only 0.05; the hold 100-200 (the
  // skip at 80) spends the other 0.35.
  const HeldTime held({{80, 100}}, 100, 200);
  const auto own = held.own_profile({{0, 0.0}, {80, 0.6}, {100, 0.65}, {200, 1.0}});
  // Own time: 0-80 as simulated, the hold at 80-180, the tail at 180-200.
  REQUIRE(own.size() == 4);
  CHECK(own[0].at_fs == 0);
  CHECK(own[0].done == doctest::Approx(0.0));
  CHECK(own[1].at_fs == 80);
  CHECK(own[1].done == doctest::Approx(0.6));
  CHECK(own[2].at_fs == 180);
  CHECK(own[2].done == doctest::Approx(0.95));
  CHECK(own[3].at_fs == 200);
  CHECK(own[3].done == 1.0);
}

TEST_CASE("a profile's knots inside a piece keep their place in it, and a piece split between knots is interpolated") {
  // The skip at 50 falls between the knots at 40 and 60 (the profile is linear there: 0.4 at 50).
  const HeldTime held({{50, 10}}, 100, 110);
  const auto own = held.own_profile({{0, 0.0}, {40, 0.3}, {60, 0.5}, {100, 0.9}, {110, 1.0}});
  // Own: 0-50 (knot at 40, end at 50: 0.4), hold at 50-60 (+0.1), 50-100 at 60-110 (knot at 60 -> 70: +0.1,
  // end: +0.4).
  REQUIRE(own.size() == 6);
  CHECK(own[1].at_fs == 40);
  CHECK(own[1].done == doctest::Approx(0.3));
  CHECK(own[2].at_fs == 50);
  CHECK(own[2].done == doctest::Approx(0.4));
  CHECK(own[3].at_fs == 60);
  CHECK(own[3].done == doctest::Approx(0.5));
  CHECK(own[4].at_fs == 70);
  CHECK(own[4].done == doctest::Approx(0.6));
  CHECK(own[5].at_fs == 110);
  CHECK(own[5].done == 1.0);
}

TEST_CASE("skips out of order, or an end inside the hold, are refused") {
  CHECK_THROWS_AS(HeldTime({{50, 10}, {40, 10}}, 100, 120), std::logic_error);
  CHECK_THROWS_AS(HeldTime({{50, 10}}, 100, 105), std::logic_error);
}

}  // namespace roofsim
