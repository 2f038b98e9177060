#include <doctest/doctest.h>

#include "models/power/clock_scaled_work.h"

using namespace roofsim;

namespace {

constexpr Hertz kGHz = 1e9;

}  // namespace

TEST_CASE("a compute-bound op recorded at f1 and replayed at f2 takes its time x f1 / f2") {
  const ClockScaledWork work({{1'200'000, 1.8 * kGHz}}, UnitTimeShares{1.0, 0.0, 0.0});
  CHECK(work.duration_fs() == 1'200'000);
  // 1.2 ns of 1.8 GHz cycles at 1.5 GHz: 1.44 ns; at 2 GHz: 1.08 ns.
  CHECK(work.duration_under({{0, 1.5 * kGHz}}) == 1'440'000);
  CHECK(work.duration_under({{0, 2.0 * kGHz}}) == 1'080'000);
  ReplayProgress progress(work);
  CHECK(progress.remaining_fs(1.5 * kGHz) == 1'440'000);
}

TEST_CASE("a memory-bound op takes its recorded time at any clock") {
  // The units hold its tiles all along and wait on data: nothing of its time follows the clock.
  const ClockScaledWork work({{1'000'000, 1.8 * kGHz}}, UnitTimeShares{0.0, 0.0, 1.0});
  CHECK(work.duration_under({{0, 0.9 * kGHz}}) == 1'000'000);
  CHECK(work.duration_under({{0, 3.6 * kGHz}}) == 1'000'000);
}

TEST_CASE("an op whose memory side binds absorbs a slower clock into its stall until its compute fills it") {
  // k 0.5, b 0.3, o 0.2, the stall all queueing: s(r) = 0.2 r + max(0.5 r, 0.8).
  const ClockScaledWork work({{1'000'000, 2.0 * kGHz}}, UnitTimeShares{0.5, 0.0, 0.3});
  CHECK(work.stretch(0, 2.0 * kGHz) == 1.0);
  CHECK(work.stretch(0, 2.0 * kGHz / 1.2) == doctest::Approx(0.24 + 0.8));  // the memory side still binds
  CHECK(work.stretch(0, 1.0 * kGHz) == doctest::Approx(0.4 + 1.0));         // r = 2: compute binds
  CHECK(work.stretch(0, 4.0 * kGHz) == doctest::Approx(0.1 + 0.8));         // faster: only the idle part gains
  CHECK(work.duration_under({{0, 1.0 * kGHz}}) == 1'400'000);
  // A stall split 1:2 between latency and queueing weighs the two readings 1:2 (k 0.5, l 0.1, b 0.2, o 0.2; r 2):
  // 0.4 + (0.5 x 2 + 0.3) / 3 + 2 max(0.5 x 2 + 0.1, 0.8) / 3.
  const ClockScaledWork mixed({{1'000'000, 2.0 * kGHz}}, UnitTimeShares{0.5, 0.1, 0.2});
  CHECK(mixed.stretch(0, 1.0 * kGHz) == doctest::Approx(0.4 + 1.3 / 3 + 2.2 / 3));
}

TEST_CASE("an op that waits on unloaded latency adds it to its compute at any clock") {
  // k 0.8, l 0.2: the loads nothing overlaps keep their time, the compute follows the clock.
  const ClockScaledWork work({{1'000'000, 2.0 * kGHz}}, UnitTimeShares{0.8, 0.2, 0.0});
  CHECK(work.duration_under({{0, 1.0 * kGHz}}) == 1'800'000);
  CHECK(work.duration_under({{0, 4.0 * kGHz}}) == 600'000);
}

TEST_CASE("at the recorded clocks a replay takes exactly the recorded time, segment by segment") {
  const ClockScaledWork work({{333'333, 1.98 * kGHz}, {444'443, 1.965 * kGHz}, {7, 1.95 * kGHz}},
                             UnitTimeShares{0.7, 0.1, 0.1});
  CHECK(work.duration_under(work.segments()) == 333'333 + 444'443 + 7);
  ReplayProgress progress(work);
  CHECK_FALSE(progress.as_recorded(1.98 * kGHz));
  progress.advance(333'333, 1.98 * kGHz);
  CHECK(progress.done_fs() == 333'333.0);
  progress.advance(444'443, 1.965 * kGHz);
  CHECK(progress.as_recorded(1.95 * kGHz));
  CHECK(progress.remaining_fs(1.95 * kGHz) == 7);
}

TEST_CASE("a replay advances through its recorded segments at the clock it is given") {
  // Compute-bound, recorded 100 fs at 2 GHz then 100 fs at 1 GHz.
  const ClockScaledWork work({{100, 2.0 * kGHz}, {100, 1.0 * kGHz}}, UnitTimeShares{1.0, 0.0, 0.0});
  // All at 1 GHz: the first segment's cycles take twice as long, 200 + 100.
  CHECK(work.duration_under({{0, 1.0 * kGHz}}) == 300);
  ReplayProgress progress(work);
  progress.advance(150, 1.0 * kGHz);  // 75 fs of the first recorded segment
  CHECK(progress.done_fs() == doctest::Approx(75.0));
  // The rest at 2 GHz: 25 fs as recorded, then the second segment's 1 GHz cycles in half the time.
  CHECK(progress.remaining_fs(2.0 * kGHz) == 25 + 50);
  CHECK(progress.wall_to(100.0, 2.0 * kGHz) == doctest::Approx(25.0));
  // A course that changes clock part way: 150 fs at 1 GHz, then 2 GHz.
  CHECK(work.duration_under({{150, 1.0 * kGHz}, {0, 2.0 * kGHz}}) == 150 + 75);
}

TEST_CASE("a replay's knots spend its counters along the recorded profile, in the replay's time") {
  // Memory-bound (time does not follow the clock), 1000 fs, with 80% of its energy spent in the first 200 fs.
  const ClockScaledWork work({{1000, 1.0 * kGHz}}, UnitTimeShares{0.0, 0.0, 1.0});
  const std::vector<ProgressKnot> profile = {{0, 0.0}, {200, 0.8}, {1000, 1.0}};
  ReplayProgress progress(work);
  std::vector<ProgressKnot> knots;
  progress.knots_ahead(5000, 1.5 * kGHz, profile, knots);
  REQUIRE(knots.size() == 3);
  CHECK(knots[0].at_fs == 5000);
  CHECK(knots[1].at_fs == 5200);
  CHECK(knots[1].done == doctest::Approx(0.8));
  CHECK(knots[2].at_fs == 6000);
  CHECK(knots[2].done == 1.0);
  CHECK(progress_left(knots, 100.0, 5100) == doctest::Approx(60.0));  // half of the first 80
  CHECK(progress_left(knots, 100.0, 5600) == doctest::Approx(10.0));
  CHECK(progress_left(knots, 100.0, 6000) == 0.0);
  CHECK(time_at_progress(knots, 0.4) == 5100);
  // Without a profile the share is the recorded time's.
  std::vector<ProgressKnot> even;
  progress.knots_ahead(0, 1.0 * kGHz, {}, even);
  CHECK(progress_left(even, 100.0, 250) == doctest::Approx(75.0));
}

TEST_CASE("unit time splits into compute, latency and bandwidth stall, and idle over units x duration") {
  const UnitTimeShares shares = unit_time_shares(120.0, 180.0, 0.25, 2, 100);
  CHECK(shares.compute == doctest::Approx(0.6));
  CHECK(shares.latency == doctest::Approx(0.075));
  CHECK(shares.bandwidth == doctest::Approx(0.225));
  // Busy beyond resident (rounding) counts as no stall; nothing beyond the whole.
  const UnitTimeShares clipped = unit_time_shares(300.0, 100.0, 0.5, 1, 200);
  CHECK(clipped.compute == doctest::Approx(1.0));
  CHECK(clipped.latency + clipped.bandwidth == 0.0);
}
