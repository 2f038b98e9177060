// The governor's policy driven by synthetic power traces in plain C++ (the same schedule the SystemC module follows:
// wake at next_wake_fs(), judge the window or apply the decided change). The load's power at a DVFS state follows
// the CMOS law, P = D (f/f0)(V/V0)^2 + S V/V0 + M, with D the compute domain's dynamic power at the fastest state
// (f0, V0), S its leakage there and M the DRAM's power, which the clock does not change.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/power/governor_policy.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {

constexpr TimeFs kUs = 1'000'000'000;  // fs per microsecond

// Five states of the shape of the bundled H100 file (linear V-f line).
std::vector<DvfsState> h100_like_states() {
  return {{0.99e9, 0.70}, {1.2e9, 0.75}, {1.5e9, 0.83}, {1.755e9, 0.89}, {1.98e9, 0.95}};
}

// A load phase: from `start_fs` on, its power split at the fastest state. `follows_clock` is false for a load
// whose work is paced by DRAM: its dynamic power then does not grow with the clock, only with V^2 per operation.
struct Phase {
  TimeFs start_fs = 0;
  Watts dynamic_w = 0;  // compute domain, at the fastest state
  Watts memory_w = 0;   // DRAM, any state
  bool follows_clock = true;
};

struct Loop {
  std::vector<DvfsState> states = h100_like_states();
  Watts static_w = 140;
  Watts cap_w = 0;
  TimeFs window_fs = 10 * kUs;
  TimeFs delay_fs = 1 * kUs;
  std::size_t up_windows = 8;
  // When > 0, the compute domain's dynamic energy is counted in whole steps of this duration at the fastest clock
  // (longer at slower clocks), each counted when it starts, as the engine counts FLOPs; steps start on a grid from 0.
  TimeFs step_fs = 0;
  std::vector<Phase> phases;

  // Power of the load at time t (its phase) and state s.
  [[nodiscard]] PowerSplit split(const Phase& phase, std::size_t s) const {
    const auto& top = states.back();
    const double f = states[s].clock_hz / top.clock_hz, v = states[s].voltage_v / top.voltage_v;
    PowerSplit p;
    p.domain_dynamic_w = phase.dynamic_w * (phase.follows_clock ? f : 1.0) * v * v;
    p.other_dynamic_w = phase.memory_w;
    p.domain_static_w = static_w * v;
    return p;
  }
  [[nodiscard]] const Phase& phase_at(TimeFs t) const {
    const Phase* current = &phases.front();
    for (const auto& phase : phases) {
      if (phase.start_fs <= t) current = &phase;
    }
    return *current;
  }

  // The state timeline: (time, state) at each change, starting with (0, top).
  std::vector<std::pair<TimeFs, std::size_t>> changes;

  // Average power split over [a, b) at state s (the load is piecewise constant).
  [[nodiscard]] PowerSplit average(TimeFs a, TimeFs b, std::size_t s) const {
    PowerSplit sum;
    std::vector<TimeFs> cuts{a};
    for (const auto& phase : phases) {
      if (phase.start_fs > a && phase.start_fs < b) cuts.push_back(phase.start_fs);
    }
    cuts.push_back(b);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const double w = static_cast<double>(cuts[i + 1] - cuts[i]) / static_cast<double>(b - a);
      const auto p = split(phase_at(cuts[i]), s);
      if (step_fs > 0) {
        // Whole steps started in the piece, each carrying a step's energy.
        const auto period =
            static_cast<TimeFs>(static_cast<double>(step_fs) * states.back().clock_hz / states[s].clock_hz);
        const auto started = static_cast<double>((cuts[i + 1] + period - 1) / period - (cuts[i] + period - 1) / period);
        sum.domain_dynamic_w += p.domain_dynamic_w * static_cast<double>(period) * started / static_cast<double>(b - a);
      } else {
        sum.domain_dynamic_w += p.domain_dynamic_w * w;
      }
      sum.other_dynamic_w += p.other_dynamic_w * w;
      sum.domain_static_w += p.domain_static_w * w;
    }
    return sum;
  }

  void run(TimeFs horizon_fs) {
    GovernorPolicy policy({cap_w, window_fs, delay_fs, states, states.back().voltage_v, up_windows});
    changes = {{0, policy.state()}};
    while (policy.next_wake_fs() <= horizon_fs) {
      const TimeFs now = policy.next_wake_fs();
      if (policy.change_pending()) {
        changes.push_back({now, policy.apply(now)});
      } else {
        (void)policy.window_ended(now, average(policy.window_start_fs(), now, policy.state()));
      }
    }
  }

  [[nodiscard]] std::size_t state_at(TimeFs t) const {
    std::size_t s = changes.front().second;
    for (const auto& [at, state] : changes) {
      if (at <= t) s = state;
    }
    return s;
  }
  // Total power at time t.
  [[nodiscard]] Watts power_at(TimeFs t) const { return split(phase_at(t), state_at(t)).total_w(); }

  // All times where the power may change, sorted.
  [[nodiscard]] std::vector<TimeFs> breakpoints(TimeFs horizon) const {
    std::vector<TimeFs> cuts{0, horizon};
    for (const auto& phase : phases) cuts.push_back(phase.start_fs);
    for (const auto& change : changes) cuts.push_back(change.first);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
  }
  // Exact integral of f(power) over [a, b).
  template <typename F>
  [[nodiscard]] double integrate(TimeFs a, TimeFs b, F f, TimeFs horizon) const {
    double sum = 0;
    const auto cuts = breakpoints(horizon);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const TimeFs lo = std::max(a, cuts[i]), hi = std::min(b, cuts[i + 1]);
      if (hi > lo) sum += f(power_at(lo)) * static_cast<double>(hi - lo) * 1e-15;
    }
    return sum;
  }
  // The last moment the power is above the cap (0 if never).
  [[nodiscard]] TimeFs last_over_cap(TimeFs horizon) const {
    TimeFs last = 0;
    const auto cuts = breakpoints(horizon);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      if (power_at(cuts[i]) > cap_w) last = cuts[i + 1];
    }
    return last;
  }
  [[nodiscard]] bool monotone_down() const {
    for (std::size_t i = 1; i < changes.size(); ++i) {
      if (changes[i].second > changes[i - 1].second) return false;
    }
    return true;
  }
};

// The highest state whose power fits under the cap for a phase, by the law (what the governor should find).
std::size_t highest_fitting(const Loop& loop, const Phase& phase) {
  for (std::size_t s = loop.states.size(); s-- > 0;) {
    if (loop.split(phase, s).total_w() <= loop.cap_w) return s;
  }
  return 0;
}

}  // namespace

TEST_CASE("a constant compute-bound load settles at the highest DVFS state that fits and never oscillates") {
  for (const Watts cap : {700.0, 600.0, 500.0, 420.0, 350.0, 300.0}) {
    Loop loop;
    loop.cap_w = cap;
    loop.phases = std::vector<Phase>{{0, 600, 40}};  // 780 W uncapped at the fastest state
    loop.run(2000 * kUs);
    const std::size_t expected = highest_fitting(loop, loop.phases[0]);
    CAPTURE(cap);
    CHECK(loop.changes.back().second == expected);
    CHECK(loop.monotone_down());
    // One step per change: exactly (top - expected) changes, none after settling.
    CHECK(loop.changes.size() - 1 == loop.states.size() - 1 - expected);
    if (expected + 1 < loop.states.size()) CHECK(loop.split(loop.phases[0], expected + 1).total_w() > cap);
  }
}

TEST_CASE(
    "work counted in whole steps makes window power jitter and one window would hunt, the mean of several does not") {
  // A load whose next state is just over the cap (by less than the jitter of one window's count): judged on one
  // window, the governor sometimes predicts a fit, steps up, finds itself over the cap and steps down again; judged
  // on the mean of eight windows the count's error is eight times smaller and it stays.
  const auto run = [](std::size_t up_windows) {
    Loop loop;
    loop.up_windows = up_windows;
    loop.step_fs = 930'000'000;  // 0.93 us per step at the fastest clock, not a divisor of the window
    loop.phases = std::vector<Phase>{{0, 600, 20}};
    const std::size_t below = 1;  // the state the governor should settle at
    const double next = loop.split(loop.phases[0], below + 1).total_w();
    loop.cap_w = next / 1.005;  // the next state is 0.5 % over the cap
    loop.run(5000 * kUs);
    return loop;
  };
  const auto hunting = run(1);
  const auto settled = run(8);
  CHECK(hunting.changes.size() > 10);
  CHECK(settled.monotone_down());
  CHECK(settled.changes.back().second == 1);
}

TEST_CASE("without a cap the governor never changes the clock") {
  Loop loop;
  loop.cap_w = 0;
  loop.phases = std::vector<Phase>{{0, 900, 40}};
  loop.run(500 * kUs);
  CHECK(loop.changes.size() == 1);
}

TEST_CASE("power over the cap lasts at most a window plus a window and a reaction delay per step") {
  // The load jumps from idle to heavy at an instant that is not on the window grid; n steps are needed. Detection
  // takes at most two windows (the one holding the jump may average under the cap), then each step costs its
  // reaction delay and, for all but the first, a full window at the new state.
  for (const TimeFs delay : {TimeFs{0}, 1 * kUs, 7 * kUs, 25 * kUs}) {
    for (const TimeFs jump : {37 * kUs, 40 * kUs, 43 * kUs}) {
      Loop loop;
      loop.cap_w = 420;
      loop.delay_fs = delay;
      loop.phases = std::vector<Phase>{{0, 0, 10}, {jump, 650, 40}};
      const TimeFs horizon = 3000 * kUs;
      loop.run(horizon);
      const std::size_t settled = highest_fitting(loop, loop.phases[1]);
      const std::size_t steps = loop.states.size() - 1 - settled;
      CAPTURE(delay);
      CAPTURE(jump);
      REQUIRE(loop.changes.back().second == settled);
      const TimeFs allowed = loop.window_fs + steps * (loop.window_fs + delay);
      CHECK(loop.last_over_cap(horizon) <= jump + allowed);
      // The energy above the cap is bounded by the same time at the state in force then.
      double bound = 0;
      for (std::size_t s = loop.states.size(); s-- > settled + 1;) {
        const double over = loop.split(loop.phases[1], s).total_w() - loop.cap_w;
        const bool first = s == loop.states.size() - 1;
        bound += over * static_cast<double>((first ? 2 * loop.window_fs : loop.window_fs) + delay) * 1e-15;
      }
      const double excess = loop.integrate(
          0, horizon, [&](double p) { return std::max(0.0, p - loop.cap_w); }, horizon);
      CHECK(excess <= bound * (1 + 1e-12));
      // Any window that starts once the governor has settled averages under the cap.
      for (TimeFs a = jump + allowed; a + loop.window_fs <= horizon; a += loop.window_fs / 7) {
        const double average = loop.integrate(
                                   a, a + loop.window_fs, [](double p) { return p; }, horizon) /
                               (static_cast<double>(loop.window_fs) * 1e-15);
        CHECK(average <= loop.cap_w * (1 + 1e-12));
      }
    }
  }
}

TEST_CASE("when the load drops the governor climbs back to the highest state the prediction admits") {
  Loop loop;
  loop.cap_w = 450;
  loop.phases = std::vector<Phase>{{0, 650, 40}, {400 * kUs, 150, 120}};
  loop.run(2000 * kUs);
  const std::size_t heavy = highest_fitting(loop, loop.phases[0]);
  CHECK(loop.state_at(399 * kUs) == heavy);
  // The light phase fits at the fastest state: the prediction says so at every step, so it climbs all the way.
  CHECK(loop.changes.back().second == loop.states.size() - 1);
  CHECK(loop.last_over_cap(2000 * kUs) < 400 * kUs);
}

TEST_CASE("a memory-paced load is predicted conservatively and still settles") {
  // Its work does not follow the clock, so stepping up raises its power by less than predicted: the governor may
  // stop below the highest fitting state but must not oscillate and must end under the cap.
  Loop loop;
  loop.cap_w = 380;
  loop.phases = std::vector<Phase>{{0, 250, 60, false}};
  loop.run(2000 * kUs);
  CHECK(loop.monotone_down());
  CHECK(loop.split(loop.phases[0], loop.changes.back().second).total_w() <= loop.cap_w);
  CHECK(loop.last_over_cap(2000 * kUs) <= loop.window_fs + (loop.states.size() - 1) * (loop.window_fs + loop.delay_fs));
}

TEST_CASE("prediction follows the CMOS law: dynamic x (f'/f)(V'/V)^2, leakage x V'/V, DRAM background unchanged") {
  PowerSplit measured{300, 50, 100, 9};
  const DvfsState from{1.5e9, 0.83}, to{1.755e9, 0.89};
  const double f = 1.755 / 1.5, v = 0.89 / 0.83;
  CHECK(test::within(predict_power_w(measured, from, to), 300 * f * v * v + 50 * f + 100 * v + 9, 1e-12));
  CHECK(test::within(predict_power_w(measured, from, from), measured.total_w(), 1e-12));
}

TEST_CASE("the schedule: back-to-back windows, decisions take effect a reaction delay later, then a new window") {
  GovernorPolicy policy({100, 10 * kUs, 3 * kUs, h100_like_states(), 0.95});
  CHECK(policy.next_wake_fs() == 10 * kUs);
  CHECK_FALSE(policy.window_ended(10 * kUs, PowerSplit{50, 0, 20, 0}).has_value());
  CHECK(policy.next_wake_fs() == 20 * kUs);
  const auto decided = policy.window_ended(20 * kUs, PowerSplit{150, 0, 20, 0});
  REQUIRE(decided.has_value());
  CHECK(*decided == 3);
  CHECK(policy.state() == 4);  // not yet
  CHECK(policy.next_wake_fs() == 23 * kUs);
  CHECK(policy.apply(23 * kUs) == 3);
  CHECK(policy.next_wake_fs() == 33 * kUs);
  CHECK_THROWS(policy.apply(33 * kUs));
}

TEST_CASE("a snapshot restored into a policy with the same parameters, moved in time, decides as the original") {
  const GovernorParams params{100, 10 * kUs, 3 * kUs, h100_like_states(), 0.95};
  GovernorPolicy original(params);
  CHECK_FALSE(original.window_ended(10 * kUs, PowerSplit{50, 0, 20, 0}).has_value());
  REQUIRE(original.window_ended(20 * kUs, PowerSplit{150, 0, 20, 0}).has_value());  // a step down pending at 23 us
  const GovernorSnapshot at_20us = original.snapshot();
  CHECK(at_20us.change_pending);
  CHECK(at_20us.pending_at_fs == 23 * kUs);
  CHECK(at_20us.pending_state == 3);
  CHECK(at_20us.at_state.size() == 2);

  GovernorPolicy copy(params);
  copy.restore(at_20us);
  CHECK(copy.snapshot() == at_20us);
  // The same state 1000 us later: every time moves by 1000 us, the kept windows stay.
  GovernorPolicy later(params);
  later.restore(at_20us.moved(20 * kUs, 1020 * kUs));
  CHECK(later.next_wake_fs() == 1023 * kUs);
  CHECK(later.snapshot().window_start_fs == 1020 * kUs);
  CHECK(original.apply(23 * kUs) == 3);
  CHECK(copy.apply(23 * kUs) == 3);
  CHECK(later.apply(1023 * kUs) == 3);
  for (TimeFs w = 1; w <= 8; ++w) {
    const PowerSplit low{20, 0, 20, 0};
    const auto a = original.window_ended(23 * kUs + w * 10 * kUs, low);
    const auto b = later.window_ended(1023 * kUs + w * 10 * kUs, low);
    CHECK(a == b);
  }
  CHECK(original.state() == later.state());
  CHECK(original.change_pending() == later.change_pending());
  // A snapshot moved back before its origin and forth again is the same (times wrap and unwrap).
  CHECK(at_20us.moved(20 * kUs, 0).moved(0, 20 * kUs) == at_20us);
  GovernorSnapshot bad = at_20us;
  bad.state = 9;
  CHECK_THROWS(copy.restore(bad));
}

TEST_CASE("the skip bound ends before the window that decides: a step up after up_windows, a step down at once") {
  // One step below the top, after the change at 21 us: windows end at 31, 41, ... us.
  const auto stepped_down = [] {
    GovernorPolicy policy({640, 10 * kUs, 1 * kUs, h100_like_states(), 0.95});
    (void)policy.window_ended(10 * kUs, PowerSplit{100, 0, 100, 0});
    (void)policy.window_ended(20 * kUs, PowerSplit{600, 0, 100, 0});
    (void)policy.apply(21 * kUs);
    return policy;
  };
  // A load predicted under the cap at the top state: the 8th window at this state steps up, at 101 us.
  const PowerSplit fits{200, 0, 100, 0};
  const PowerSplit stays{560, 0, 60, 0};  // under the cap, over it at the top state
  const PowerSplit over{600, 0, 100, 0};
  const TimeFs now = 25 * kUs;
  {
    const GovernorPolicy policy = stepped_down();
    CHECK(policy.skip_bound_fs(now, fits) == 101 * kUs - now - 1);
    CHECK(policy.skip_bound_fs(now, stays) == kNever);
    CHECK(policy.skip_bound_fs(now, over) == 31 * kUs - now - 1);
  }
  {
    // 33 us skipped at 25 us: the windows ending at 31, 41 and 51 us passed measuring `fits` (3 of the 8); after the
    // stretch the window that began at 51 us has run 7 us, so on the simulated clock it began at 18 us.
    GovernorPolicy policy = stepped_down();
    policy.skip_windows(now, 33 * kUs, fits);
    CHECK(policy.window_start_fs() == 18 * kUs);
    CHECK(policy.next_wake_fs() == 28 * kUs);
    CHECK(policy.kept_mean().total_w() == doctest::Approx(fits.total_w()));
    // Five more windows: the fifth (the 8th at the state) steps up.
    for (TimeFs w = 1; w <= 4; ++w) CHECK_FALSE(policy.window_ended(18 * kUs + w * 10 * kUs, fits).has_value());
    const auto up = policy.window_ended(68 * kUs, fits);
    REQUIRE(up.has_value());
    CHECK(*up == 4);
  }
  {
    GovernorPolicy policy = stepped_down();
    CHECK_THROWS(policy.skip_windows(now, 101 * kUs - now, fits));  // reaches the end of the deciding window
    CHECK_NOTHROW(policy.skip_windows(now, 101 * kUs - now - 1, fits));
  }
  // A pending change: nothing may be skipped.
  GovernorPolicy pending({640, 10 * kUs, 1 * kUs, h100_like_states(), 0.95});
  (void)pending.window_ended(10 * kUs, over);
  CHECK(pending.skip_bound_fs(10 * kUs + 1, fits) == 0);
}

TEST_CASE("whole periods skipped keep the policy's decisions and kept windows and move its window's phase") {
  // One step below the top since 21 us, three windows kept (31, 41, 51 us), at 55 us.
  const PowerSplit fits{200, 0, 100, 0};
  GovernorPolicy policy({640, 10 * kUs, 1 * kUs, h100_like_states(), 0.95});
  (void)policy.window_ended(10 * kUs, PowerSplit{100, 0, 100, 0});
  (void)policy.window_ended(20 * kUs, PowerSplit{600, 0, 100, 0});
  (void)policy.apply(21 * kUs);
  for (TimeFs w = 1; w <= 3; ++w) CHECK_FALSE(policy.window_ended(21 * kUs + w * 10 * kUs, fits).has_value());
  const TimeFs now = 55 * kUs;
  const GovernorSnapshot before = policy.snapshot();
  // 247 us skipped: past the window that would decide after five more windows of `fits`, which a period skip does
  // not judge (each period came back to where it began). The window that began at 51 us would have run 251 us: the
  // one running after the stretch began at 301 us, 1 us after 300 us; on the simulated clock 247 us earlier, 54 us.
  policy.skip_periods(now, 247 * kUs);
  CHECK(policy.window_start_fs() == 54 * kUs);
  CHECK(policy.state() == before.state);
  CHECK(policy.snapshot().at_state.size() == before.at_state.size());
  CHECK(policy.kept_mean().total_w() == doctest::Approx(fits.total_w()));
  // A pending change is no point of a cycle.
  GovernorPolicy pending({640, 10 * kUs, 1 * kUs, h100_like_states(), 0.95});
  (void)pending.window_ended(10 * kUs, PowerSplit{600, 0, 100, 0});
  CHECK_THROWS(pending.skip_periods(10 * kUs + 1, 100 * kUs));
}

TEST_CASE("a skip through the window that decides: judged as window by window, the change inside the stretch") {
  const PowerSplit fits{200, 0, 100, 0};  // one step below the top: the 8th window there predicts a fit and steps up
  const PowerSplit top{540, 0, 60, 0};    // at the top state: under the cap, and no state above
  const PowerSplit over{600, 0, 100, 0};
  // At the top state, a skip measures `top` there; then one window over the cap steps down, at 21 us. Windows at
  // the state below end at 31, 41, ... us; the 8th, at 101 us, steps up at 102 us.
  const auto stepped_down = [&](bool skipped_at_top) {
    GovernorPolicy policy({640, 10 * kUs, 1 * kUs, h100_like_states(), 0.95});
    CHECK_FALSE(policy.window_ended(10 * kUs, top).has_value());
    // 20 us skipped at 10 us: two windows judged; the next one still begins at 10 us on the simulated clock.
    if (skipped_at_top) policy.skip_windows(10 * kUs, 20 * kUs, top);
    CHECK(policy.window_start_fs() == 10 * kUs);
    REQUIRE(policy.window_ended(20 * kUs, over).has_value());
    CHECK(policy.apply(21 * kUs) == 3);
    return policy;
  };
  const TimeFs now = 25 * kUs;
  CHECK_FALSE(stepped_down(false).through_bound(now, fits).has_value());  // the top state was never measured
  const GovernorPolicy policy = stepped_down(true);
  REQUIRE(policy.steady_split(4).has_value());
  CHECK(policy.steady_split(4)->total_w() == doctest::Approx(top.total_w()));
  CHECK_FALSE(policy.through_bound(now, PowerSplit{560, 0, 60, 0}).has_value());  // no window decides
  const auto through = policy.through_bound(now, fits);
  REQUIRE(through.has_value());
  CHECK(through->change_after_fs == 102 * kUs - now);
  CHECK(through->state == 4);
  CHECK(through->bound_fs == kNever);  // nothing decides at the top state measuring `top`

  // 110 us skipped at 25 us: the stretch ends at 135 us; the windows at the top state ended at 112, 122 and 132 us.
  GovernorPolicy skipped = policy;
  skipped.skip_through(now, 110 * kUs, fits);
  GovernorPolicy stepped = policy;
  for (TimeFs end = 31 * kUs; end < 101 * kUs; end += 10 * kUs) CHECK_FALSE(stepped.window_ended(end, fits));
  REQUIRE(stepped.window_ended(101 * kUs, fits).has_value());
  CHECK(stepped.apply(102 * kUs) == 4);
  for (TimeFs end = 112 * kUs; end <= 132 * kUs; end += 10 * kUs) CHECK_FALSE(stepped.window_ended(end, top));
  // On the simulated clock, which did not move, the window that began at 132 us began 110 us earlier.
  CHECK(skipped.state() == 4);
  CHECK(skipped.window_start_fs() == 22 * kUs);
  CHECK(skipped.snapshot() == stepped.snapshot().moved(135 * kUs, now));

  GovernorPolicy short_of_it = policy;
  CHECK_THROWS(short_of_it.skip_through(now, 102 * kUs - now - 1, fits));  // ends before the change
  GovernorPolicy pending = stepped_down(true);
  REQUIRE(pending.window_ended(31 * kUs, over).has_value());
  CHECK_FALSE(pending.through_bound(now + 10 * kUs, fits).has_value());
}

TEST_CASE("a skip through a change ends before a window at the new state decides") {
  // The top state's skip measured `hot`, over the cap: the first window after a step up decides a step down.
  const PowerSplit fits{200, 0, 100, 0};
  const PowerSplit hot{600, 0, 100, 0};
  GovernorPolicy policy({640, 10 * kUs, 1 * kUs, h100_like_states(), 0.95});
  // 1 fs skipped at 15 us measuring `hot` (the window ending at 20 us would decide): the window starts 1 fs earlier.
  CHECK_FALSE(policy.window_ended(10 * kUs, fits).has_value());
  policy.skip_windows(15 * kUs, 1, hot);
  REQUIRE(policy.window_ended(20 * kUs - 1, hot).has_value());
  CHECK(policy.apply(21 * kUs - 1) == 3);
  // At the state below: the 8th window, ending at 101 us - 1 fs, steps up at 102 us - 1 fs; the first window at the
  // top state ends 10 us later and steps down.
  const TimeFs now = 25 * kUs;
  const auto through = policy.through_bound(now, fits);
  REQUIRE(through.has_value());
  CHECK(through->change_after_fs == 102 * kUs - 1 - now);
  CHECK(through->bound_fs == 112 * kUs - 1 - now - 1);
  GovernorPolicy past = policy;
  CHECK_THROWS(past.skip_through(now, through->bound_fs + 1, fits));
  GovernorPolicy within = policy;
  CHECK_NOTHROW(within.skip_through(now, through->bound_fs, fits));
  CHECK(within.state() == 4);
}
