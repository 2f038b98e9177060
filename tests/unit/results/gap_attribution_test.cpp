// Gap attribution: the ceiling's time comes out of its resource's measured share first, and the causes add up to the
// gap exactly whatever the binding resource.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/results/gap_attribution.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {
double cause(const GapAttribution& gap, const std::string& name) {
  for (const auto& c : gap.causes) {
    if (c.name == name) return c.seconds;
  }
  return NAN;
}
double sum(const GapAttribution& gap) {
  double total = 0;
  for (const auto& c : gap.causes) total += c.seconds;
  return total;
}
GapInput input(Seconds ceiling, const std::string& bound_by) {
  GapInput in;
  in.sim_time_s = 10e-6;
  in.ceiling_time_s = ceiling;
  in.bound_by = bound_by;
  in.causes = {{"compute", 6e-6},
               {"latency", 1e-6},
               {"bandwidth_queueing", 1.5e-6},
               {"tail", 1e-6},
               {"dependencies_dispatch", 0.25e-6},
               {"launch", 0.25e-6}};
  return in;
}
}  // namespace

TEST_CASE("Gap attribution: a compute-bound op's ceiling time comes out of busy time, the rest is the gap") {
  const auto gap = attribute_gap(input(5e-6, "compute:bf16"));
  CHECK(test::within(gap.gap_s, 5e-6, 1e-12));
  CHECK(test::within(cause(gap, "compute"), 1e-6, 1e-12));
  CHECK(test::within(cause(gap, "tail"), 1e-6, 1e-12));
  CHECK(test::within(cause(gap, "bandwidth_queueing"), 1.5e-6, 1e-12));
  CHECK(cause(gap, "ahead_of_ceiling") == 0.0);
  CHECK(std::abs(cause(gap, "unattributed")) < 1e-18);
  CHECK(test::within(sum(gap), gap.gap_s, 1e-9));
}

TEST_CASE("Gap attribution: a memory-bound op's ceiling time comes out of queueing, then latency, then compute") {
  const auto gap = attribute_gap(input(3e-6, "memory:dram"));
  CHECK(gap.absorbed_by == "bandwidth_queueing");
  CHECK(cause(gap, "bandwidth_queueing") == 0.0);
  CHECK(cause(gap, "latency") == 0.0);
  CHECK(test::within(cause(gap, "compute"), 5.5e-6, 1e-12));
  CHECK(test::within(sum(gap), 7e-6, 1e-9));
  const auto latency = attribute_gap(input(0.5e-6, "latency"));
  CHECK(test::within(cause(latency, "latency"), 0.5e-6, 1e-12));
  CHECK(test::within(cause(latency, "bandwidth_queueing"), 1.5e-6, 1e-12));
}

TEST_CASE("Gap attribution: an op faster than its ceiling has a negative gap, carried by ahead_of_ceiling") {
  const auto gap = attribute_gap(input(12e-6, "dram-rows"));
  CHECK(test::within(gap.gap_s, -2e-6, 1e-12));
  CHECK(test::within(cause(gap, "ahead_of_ceiling"), -2e-6, 1e-9));
  CHECK(test::within(sum(gap), -2e-6, 1e-9));
  // Shares that miss the simulated time show as unattributed rather than vanish.
  auto in = input(5e-6, "compute:bf16");
  in.sim_time_s = 11e-6;
  const auto off = attribute_gap(in);
  CHECK(test::within(cause(off, "unattributed"), 1e-6, 1e-9));
  CHECK(test::within(sum(off), 6e-6, 1e-9));
}

TEST_CASE("Gap attribution: a power-bound op's ceiling time comes out of busy time, then out of throttling") {
  // Busy 6 us of which throttling (time beyond the nominal clock's) 2 us: compute 4 us + throttling 2 us.
  auto in = input(5e-6, "power");
  in.causes[0].seconds = 4e-6;
  in.causes.push_back({"throttling", 2e-6});
  const auto gap = attribute_gap(in);
  CHECK(ceiling_cause_for("power") == "compute");
  CHECK(gap.absorbed_by == "compute");
  CHECK(cause(gap, "compute") == 0.0);
  // The ceiling allowed 1 us of the slowdown; the other 1 us is the op running below the ceiling's clock.
  CHECK(test::within(cause(gap, "throttling"), 1e-6, 1e-9));
  CHECK(test::within(cause(gap, "bandwidth_queueing"), 1.5e-6, 1e-12));
  CHECK(test::within(sum(gap), 5e-6, 1e-9));
  // A compute-bound op that was throttled keeps its whole throttling in the gap.
  in.bound_by = "compute:bf16";
  in.ceiling_time_s = 3e-6;
  const auto compute = attribute_gap(in);
  CHECK(test::within(cause(compute, "compute"), 1e-6, 1e-9));
  CHECK(test::within(cause(compute, "throttling"), 2e-6, 1e-12));
  CHECK(test::within(sum(compute), 7e-6, 1e-9));
}
