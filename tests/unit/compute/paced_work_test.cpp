// Work as a power sensor sees it spent (models/compute/paced_work.h): an amount over an interval, re-timed by a clock
// change, a step's FLOPs and lane operations shared out over its phases, and a re-timed replay's units' time.
#include <doctest/doctest.h>

#include "models/compute/op_execution.h"
#include "models/compute/paced_work.h"
#include "models/kernel/compute_clock.h"

using namespace roofsim;

TEST_CASE("an amount paced over an interval is all to come before it, none after it, and linear inside") {
  const PacedAmount paced{100.0, 1000, 2000};
  CHECK(paced.left(0) == 100.0);
  CHECK(paced.left(1000) == 100.0);
  CHECK(paced.left(1250) == 75.0);
  CHECK(paced.left(1900) == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(paced.left(2000) == 0.0);
  CHECK(PacedAmount{0.0, 0, 10}.left(5) == 0.0);
}

TEST_CASE("a clock change halfway spends the rest over the re-timed rest of the interval") {
  // 100 over [0, 1000); at 500 the clock halves, so the 500 fs left take 1000: the interval now ends at 1500.
  PacedAmount paced{100.0, 0, 1000};
  const auto warp = [](TimeFs at) { return retime_fs(at, 500, 2e9, 1e9); };
  paced.retime(500, warp);
  CHECK(paced.left(500) == doctest::Approx(50.0).epsilon(1e-12));
  CHECK(paced.left(1000) == doctest::Approx(25.0).epsilon(1e-12));
  CHECK(paced.left(1500) == 0.0);
  // An interval wholly after the change moves whole.
  PacedAmount later{40.0, 600, 800};
  later.retime(500, warp);
  CHECK(later.begin_fs == 700);
  CHECK(later.end_fs == 1100);
  CHECK(later.left(900) == doctest::Approx(20.0).epsilon(1e-12));
}

TEST_CASE("a step's FLOPs are spent phase by phase in proportion to the matrix work each runs") {
  // An attention-like step of 1000 FLOPs: phase 0 runs 3 parts of its matrix work over [0, 300), phase 1 none
  // (softmax lane operations over [300, 400)), phase 2 the last part over [400, 500).
  std::array<StepWorkPacing, 2> running{};
  running[0].step_issued(1000.0);
  std::array<PacedAmount, kWorkKinds - 1> no_ops{};
  running[0].phase_started(3, 4, false, 0, 300, no_ops);
  UnfinishedWork at_150;
  StepWorkPacing::add_unfinished(running, 150, at_150);
  CHECK(at_150.flops == doctest::Approx(250.0 + 375.0).epsilon(1e-12));  // phase 2's share + half of phase 0's

  std::array<PacedAmount, kWorkKinds - 1> softmax{};
  softmax[0] = PacedAmount{64.0, 300, 400};  // vector FMAs
  softmax[2] = PacedAmount{32.0, 300, 400};  // exp2
  running[0].phase_started(0, 1, false, 300, 400, softmax);
  UnfinishedWork at_350;
  StepWorkPacing::add_unfinished(running, 350, at_350);
  CHECK(at_350.flops == doctest::Approx(250.0).epsilon(1e-12));
  CHECK(at_350.ops[0] == doctest::Approx(32.0).epsilon(1e-12));
  CHECK(at_350.ops[2] == doctest::Approx(16.0).epsilon(1e-12));

  running[0].phase_started(1, 1, true, 400, 500, no_ops);
  UnfinishedWork at_475;
  StepWorkPacing::add_unfinished(running, 475, at_475);
  CHECK(at_475.flops == doctest::Approx(62.5).epsilon(1e-12));
  UnfinishedWork at_end;
  StepWorkPacing::add_unfinished(running, 500, at_end);
  CHECK(at_end.flops == 0.0);
}

TEST_CASE("the step run ahead counts with the step computing, and a cleared step counts nothing") {
  std::array<StepWorkPacing, 2> running{};
  std::array<PacedAmount, kWorkKinds - 1> no_ops{};
  running[0].step_issued(100.0);
  running[0].phase_started(1, 1, true, 0, 100, no_ops);
  running[1].step_issued(100.0);
  running[1].phase_started(1, 1, true, 100, 200, no_ops);
  UnfinishedWork at_50;
  StepWorkPacing::add_unfinished(running, 50, at_50);
  CHECK(at_50.flops == doctest::Approx(150.0).epsilon(1e-12));
  running[0] = running[1];
  running[1].clear();
  UnfinishedWork at_150;
  StepWorkPacing::add_unfinished(running, 150, at_150);
  CHECK(at_150.flops == doctest::Approx(50.0).epsilon(1e-12));
}

TEST_CASE("a re-timed replay keeps the units' time it spent and spends the stretched rest along what is to come") {
  // A replay over [0, 1000) whose units hold its tiles for 800 fs in all, at an even pace: 400 by its middle.
  OpExecution e;
  e.replay_start_fs = 0;
  e.replay_end_fs = 1000;
  CHECK(replay_units_spent_fs(e, 800.0, 250) == doctest::Approx(200.0).epsilon(1e-12));
  CHECK(replay_units_spent_fs(e, 800.0, 500) == doctest::Approx(400.0).epsilon(1e-12));
  // At 500 the clock halves: the half still to come takes 1000 fs, the replay ends at 1500 and its units' time is
  // 400 + 2 x 400 = 1200. What was spent stays 400, not half of the new 1200.
  e.replay_units_spent_fs = replay_units_spent_fs(e, 800.0, 500);
  e.replay_end_fs = 1500;
  e.replay_progress = {{0, 0.0}, {500, 0.5}, {1500, 1.0}};
  e.replay_units_left_share = replay_left(e, 1.0, 500);
  CHECK(e.replay_units_left_share == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(replay_units_spent_fs(e, 1200.0, 500) == doctest::Approx(400.0).epsilon(1e-12));
  CHECK(replay_units_spent_fs(e, 1200.0, 1000) == doctest::Approx(800.0).epsilon(1e-12));
  CHECK(replay_units_spent_fs(e, 1200.0, 1500) == doctest::Approx(1200.0).epsilon(1e-12));
  // The same 1200 spent along the whole progress would have booked 600 at once at the change.
  CHECK(1200.0 * (1.0 - replay_left(e, 1.0, 500)) == doctest::Approx(600.0).epsilon(1e-12));
}
