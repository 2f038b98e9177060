// The compute domain's clock: the DVFS state, the engine clocks it implies, listeners told of changes, the state
// timeline, and re-timing of work in flight that keeps its remaining cycles.
#include <doctest/doctest.h>

#include <vector>

#include "models/power/clock_domain.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {

struct Recorder final : ClockListener {
  struct Call {
    TimeFs now = 0;
    Hertz old_clock = 0, new_clock = 0;
  };
  std::vector<Call> calls;
  void clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) override {
    calls.push_back({now_fs, old_clock_hz, new_clock_hz});
  }
};

std::vector<DvfsState> states() {
  return {{1.0e9, 0.7}, {1.5e9, 0.8}, {2.0e9, 0.9}};
}

}  // namespace

TEST_CASE("the domain starts at the fastest state and scales engine clocks by f / f_nominal") {
  ClockDomain domain(states(), 2.0e9);
  CHECK(domain.state() == 2);
  CHECK(domain.clock_hz() == 2.0e9);
  CHECK(domain.engine_clock_hz(1.83e9) == doctest::Approx(1.83e9).epsilon(1e-15));
  domain.set_state(0, 5);
  CHECK(test::within(domain.engine_clock_hz(1.83e9), 0.915e9, 1e-15));
  CHECK(test::within(domain.clock_scale(), 0.5, 1e-15));
  CHECK(domain.voltage_v() == 0.7);
}

TEST_CASE("listeners hear every change once, with the old and new clocks, and not a repeated state") {
  ClockDomain domain(states(), 2.0e9);
  Recorder a, b;
  domain.add_listener(a);
  domain.add_listener(b);
  domain.set_state(1, 100);
  domain.set_state(1, 150);
  domain.set_state(2, 200);
  REQUIRE(a.calls.size() == 2);
  CHECK(b.calls.size() == 2);
  CHECK(a.calls[0].now == 100);
  CHECK(a.calls[0].old_clock == 2.0e9);
  CHECK(a.calls[0].new_clock == 1.5e9);
  CHECK(a.calls[1].new_clock == 2.0e9);
  CHECK_THROWS(domain.set_state(0, 150));
}

TEST_CASE("the timeline covers the run with adjacent intervals") {
  ClockDomain domain(states(), 2.0e9);
  domain.set_state(1, 100);
  domain.set_state(0, 250);
  const auto timeline = domain.timeline(1000);
  REQUIRE(timeline.size() == 3);
  CHECK(timeline[0].start_fs == 0);
  CHECK(timeline[0].end_fs == 100);
  CHECK(timeline[0].state == 2);
  CHECK(timeline[1].state == 1);
  CHECK(timeline[2].start_fs == 250);
  CHECK(timeline[2].end_fs == 1000);
  CHECK(timeline[2].state == 0);
  // A change at time 0 leaves no empty interval.
  ClockDomain early(states(), 2.0e9);
  early.set_state(0, 0);
  REQUIRE(early.timeline(10).size() == 1);
  CHECK(early.timeline(10)[0].state == 0);
}

TEST_CASE(
    "re-timing keeps the cycles still to do: a step half done at 2 GHz takes twice as long for the rest at 1 GHz") {
  // 1000 cycles at 2 GHz = 500 ns = 5e8 fs, started at 0; the clock halves at 250 ns.
  const TimeFs finish = 500'000'000;
  const TimeFs change = 250'000'000;
  const TimeFs retimed = retime_fs(finish, change, 2.0e9, 1.0e9);
  CHECK(retimed == 750'000'000);
  // Cycles: 250 ns x 2 GHz + 500 ns x 1 GHz = 500 + 500 = 1000.
  const double cycles = 250e-9 * 2.0e9 + static_cast<double>(retimed - change) * 1e-15 * 1.0e9;
  CHECK(test::within(cycles, 1000, 1e-12));
  // Back and forth returns to the original finish (within rounding of 1 fs per change).
  const TimeFs there = retime_fs(finish, change, 2.0e9, 1.5e9);
  const TimeFs back = retime_fs(there, change, 1.5e9, 2.0e9);
  CHECK((back >= finish - 1 && back <= finish + 1));
  // Finished work and unchanged clocks are left alone.
  CHECK(retime_fs(100, 200, 2.0e9, 1.0e9) == 100);
  CHECK(retime_fs(finish, change, 2.0e9, 2.0e9) == finish);
}

TEST_CASE("throttling loss: work at f_s took f0 / f_s as long, so it lost busy x (1 - f_s / f0) per state") {
  // 4 us at 1 GHz and 2 us at 1.5 GHz against a 2 GHz nominal: 4 x 0.5 + 2 x 0.25 = 2.5 us; the nominal state loses
  // nothing.
  const std::vector<TimeFs> busy = {4'000'000'000, 2'000'000'000, 7'000'000'000};
  CHECK(test::within(throttling_loss_s(busy, states(), 2.0e9), 2.5e-6, 1e-12));
  // The same work at the nominal clock takes busy x f_s / f0; busy minus that is the loss.
  double nominal_s = 0, busy_s = 0;
  for (std::size_t s = 0; s < busy.size(); ++s) {
    busy_s += static_cast<double>(busy[s]) * 1e-15;
    nominal_s += static_cast<double>(busy[s]) * 1e-15 * states()[s].clock_hz / 2.0e9;
  }
  CHECK(test::within(throttling_loss_s(busy, states(), 2.0e9), busy_s - nominal_s, 1e-12));
  // A state above the nominal clock gains, it does not lose; no busy time, no loss.
  CHECK(throttling_loss_s({0, 0, 1'000'000}, states(), 1.5e9) == 0.0);
  CHECK(throttling_loss_s({}, states(), 2.0e9) == 0.0);
}
