// Power caps in whole simulated runs: without a cap, a compute-bound GEMM and a streaming op draw the
// closed-form power of their energies; under a cap the governor throttles the clock, a compute-bound GEMM settles at
// the highest DVFS state whose power fits and slows by the frequency ratio, a memory-bound stream slows far less;
// energies add up and equal the integral of the power trace. Figures: tests/scenario/power_test_device.h.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "sim/engine/engine.h"
#include "tests/scenario/power_test_device.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {

Workload gemm_workload() {
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 2048, 2048, 2048, TileShape{128, 128, 64});
  return builder.workload();
}

Workload stream_workload() {
  test::WorkloadBuilder builder;
  builder.elementwise("add", 16ULL << 20, 2);
  return builder.workload();
}

// The number `figure` returns, computed in a child process: SystemC elaborates once per process, and the capped and
// uncapped runs of one test are two elaborations.
template <typename Figure>
double in_child(Figure&& figure) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    const double value = figure();
    const auto written = ::write(fds[1], &value, sizeof value);
    std::_Exit(written == sizeof value ? 0 : 1);
  }
  ::close(fds[1]);
  double value = 0;
  const auto got = ::read(fds[0], &value, sizeof value);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(got == static_cast<ssize_t>(sizeof value));
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return value;
}

// The first op's simulated time of a run, in a child process.
Seconds op_time_in_child(const HardwareParams& hw, const Workload& workload) {
  return in_child([&] { return run_workload(hw, workload).ops.at(0).sim_time_s; });
}

// Average power of the trace over [from, to).
Watts trace_power_w(const PowerRunStats& power, Seconds from, Seconds to) {
  double energy = 0;
  for (const auto& sample : power.trace) {
    const double a = std::max(from, static_cast<double>(sample.start_fs) * 1e-15);
    const double b = std::min(to, static_cast<double>(sample.end_fs) * 1e-15);
    if (b > a) energy += sample.power.total_w() * (b - a);
  }
  return energy / (to - from);
}

// The highest state whose closed-form power fits under the cap, for an op at rate = peak x f / f0.
std::size_t highest_fitting(const test::PowerTestDevice& device, double peak, double flops,
                            const std::vector<std::pair<std::string, Bytes>>& bytes) {
  std::size_t fitting = 0;
  for (std::size_t s = 0; s < device.states.size(); ++s) {
    const double rate = peak * device.states[s].clock_hz / device.states.back().clock_hz;
    if (device.power_w(rate, flops, bytes, s) <= device.cap_w) fitting = s;
  }
  return fitting;
}

}  // namespace

TEST_CASE("power: without a cap a compute-bound GEMM draws peak x energy per FLOP plus static power") {
  test::PowerTestDevice device;
  const auto hw = device.build();
  const auto result = run_workload(hw, gemm_workload());
  const auto& op = result.ops.at(0);
  const double peak =
      static_cast<double>(device.spec.units) * device.spec.matrix_flops_per_cycle * device.spec.clock_hz;
  const double flops = static_cast<double>(op.executed_flops);
  // Closed form at the peak rate with the measured bytes per FLOP; the op runs at >= 90% of the peak.
  const Watts at_peak = device.power_w(peak, flops, op.bytes, 2);
  const Watts measured = result.power.ops.at(0).average_power_w;
  const double efficiency = flops / op.sim_time_s / peak;
  MESSAGE("GEMM: " << measured << " W measured, " << at_peak << " W at the peak rate, efficiency " << efficiency);
  CHECK(efficiency >= 0.9);
  // Power = efficiency x dynamic power at the peak + static: the energies over the simulated time, exactly.
  CHECK(test::within(measured, (at_peak - device.static_w) * efficiency + device.static_w, 1e-6));
  CHECK(result.power.clock_changes == 0);
}

TEST_CASE("power: without a cap a streaming op draws its bandwidth x energy per byte plus static power") {
  test::PowerTestDevice device;
  device.spec.units = 16;
  const auto hw = device.build();
  const auto result = run_workload(hw, stream_workload());
  const auto& op = result.ops.at(0);
  Bytes dram = 0;
  for (const auto& [level, bytes] : op.bytes) dram += level == "dram" ? bytes : 0;
  const double bandwidth = hw.dram->peak_bandwidth_bytes_per_s();
  const double flops = static_cast<double>(op.executed_flops);
  // At the DRAM line the op runs at OI x B FLOP/s; every level's bytes follow in proportion.
  const double rate_at_line = flops / static_cast<double>(dram) * bandwidth;
  const Watts at_line = device.power_w(rate_at_line, flops, op.bytes, 2, false);
  const double efficiency = flops / op.sim_time_s / rate_at_line;
  const Watts measured = result.power.ops.at(0).average_power_w;
  MESSAGE("stream: " << measured << " W measured, " << at_line << " W at the DRAM line, efficiency " << efficiency);
  CHECK(efficiency >= 0.9);
  CHECK(test::within(measured, (at_line - device.static_w) * efficiency + device.static_w, 1e-6));
}

TEST_CASE("power: a capped compute-bound GEMM settles at the highest fitting state and slows by the clock ratio") {
  const Seconds uncapped_s = op_time_in_child(test::PowerTestDevice{}.build(), gemm_workload());
  test::PowerTestDevice device;
  device.cap_w = 80;  // below the GEMM's ~105 W at 1 GHz, above its ~64 W at 0.75 GHz
  const auto result = run_workload(device.build(), gemm_workload());
  const auto& op = result.ops.at(0);
  const double peak =
      static_cast<double>(device.spec.units) * device.spec.matrix_flops_per_cycle * device.spec.clock_hz;
  const std::size_t fitting = highest_fitting(device, peak, static_cast<double>(op.executed_flops), op.bytes);
  REQUIRE(fitting == 1);
  // Settled: the last state, and the state it spent nearly all its time at.
  const auto& times = result.power.ops.at(0).time_at_state_s;
  CHECK(result.power.trace.back().state == fitting);
  CHECK(times[fitting] >= 0.95 * op.sim_time_s);
  const double slowdown = op.sim_time_s / uncapped_s;
  const double ratio = device.states.back().clock_hz / device.states[fitting].clock_hz;
  MESSAGE("GEMM under " << device.cap_w << " W: slowdown " << slowdown << " vs clock ratio " << ratio << ", "
                        << result.power.clock_changes << " clock changes, " << result.power.ops.at(0).average_power_w
                        << " W");
  CHECK(test::within(slowdown, ratio, 0.05));
  // The measured throttling (busy time per DVFS state x (1 - f / f0), per unit) is the time the op lost: a
  // compute-bound GEMM keeps every unit busy, so its extra time over the uncapped run is its throttling share.
  double busy_s = 0;
  for (const Seconds at_state : op.busy_at_state_s) busy_s += at_state;
  CHECK(test::within(busy_s, op.busy_s, 1e-9));
  const double lost_s = op.throttle_s / static_cast<double>(device.spec.units);
  MESSAGE("extra time " << op.sim_time_s - uncapped_s << " s, throttling share " << lost_s << " s");
  CHECK(test::within(lost_s, op.sim_time_s - uncapped_s, 0.05));
  // No oscillation: the governor moved down and stayed.
  CHECK(result.power.clock_changes == device.states.size() - 1 - fitting);
  // Once settled (a window, then a window and a reaction delay per step after the start), no window is over the cap.
  const double settled_s = device.window_s + static_cast<double>(device.states.size() - 1 - fitting) *
                                                 (device.window_s + device.reaction_delay_s);
  for (const auto& sample : result.power.trace) {
    if (static_cast<double>(sample.start_fs) * 1e-15 >= settled_s) CHECK(sample.power.total_w() <= device.cap_w);
  }
  CHECK(trace_power_w(result.power, settled_s, op.sim_time_s) <= device.cap_w);
}

TEST_CASE("power: under a cap that throttles it a memory-bound stream slows far less than the clock") {
  test::PowerTestDevice device;
  device.spec.units = 16;
  device.cap_w = 55;  // below the stream's power at 1 GHz (its DRAM power does not fall with the clock)
  test::PowerTestDevice free_device = device;
  free_device.cap_w = 0;
  const Seconds uncapped_s = op_time_in_child(free_device.build(), stream_workload());
  const auto result = run_workload(device.build(), stream_workload());
  const double slowdown = result.ops.at(0).sim_time_s / uncapped_s;
  const auto& times = result.power.ops.at(0).time_at_state_s;
  MESSAGE("stream under " << device.cap_w << " W: slowdown " << slowdown << ", throttled "
                          << result.power.ops.at(0).throttled_s << " s of " << result.ops.at(0).sim_time_s);
  CHECK(result.power.ops.at(0).throttled_s > 0.5 * result.ops.at(0).sim_time_s);
  CHECK(times.back() < result.ops.at(0).sim_time_s);
  // The clock fell by up to 2x; the stream's time hardly moved.
  CHECK(slowdown < 1.1);
}

TEST_CASE("power: per-op energies add up to the total and the total is the integral of the power trace") {
  test::PowerTestDevice device;
  device.cap_w = 70;
  device.spec.streams = 2;
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 1024, 1024, 2048, TileShape{128, 128, 64});
  builder.elementwise("add", 4ULL << 20, 2);
  const auto after = builder.gemm("gemm2", 1024, 1024, 1024, TileShape{128, 128, 64});
  builder.workload().ops[after].after = {1};
  const auto result = run_workload(device.build(), builder.workload());
  const auto& power = result.power;
  double per_op = 0;
  for (const auto& op : power.ops) per_op += op.energy_j;
  double integral = 0, sampled = 0;
  TimeFs at = 0;
  for (const auto& sample : power.trace) {
    CHECK(sample.start_fs == at);
    at = sample.end_fs;
    integral += sample.power.total_w() * static_cast<double>(sample.end_fs - sample.start_fs) * 1e-15;
    sampled += sample.energy_j;
  }
  CHECK(test::within(static_cast<double>(at) * 1e-15, result.sim_time_s, 1e-12));
  MESSAGE("energy " << power.energy_j << " J, per op " << per_op << " J, trace " << integral << " J, "
                    << power.clock_changes << " clock changes");
  CHECK(test::within(per_op, power.energy_j, 1e-9));
  CHECK(test::within(integral, power.energy_j, 1e-9));
  CHECK(test::within(sampled, power.energy_j, 1e-9));
  CHECK(power.throttled());
}

namespace {

// The average power of the first op of an uncapped run, in a child process (one elaboration per process).
Watts uncapped_power_in_child(test::PowerTestDevice device, const Workload& workload) {
  device.cap_w = 0;
  return in_child([&] { return run_workload(device.build(), workload).power.ops.at(0).average_power_w; });
}

// A DVFS table with a state every 10 MHz from 0.5 to 1 GHz, voltage on a line from 0.7 V to 1 V: dense enough that
// some state's power lies within 3% under any cap the load can meet.
std::vector<DvfsState> dense_states() {
  std::vector<DvfsState> states;
  for (int step = 0; step <= 50; ++step) {
    const double f = 0.5e9 + 10e6 * step;
    states.push_back({f, 0.7 + 0.3 * (f - 0.5e9) / 0.5e9});
  }
  return states;
}

// The engines' load alone: the GEMM's on-chip bytes are counted when requested (in bursts as panels start), and
// DRAM power does not follow the clock, so the steady load of these tests is the compute domain's.
test::PowerTestDevice steady_device() {
  test::PowerTestDevice device;
  device.dram_byte_j = 0;
  device.states = dense_states();
  return device;
}

Workload long_gemm_workload() {
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 4096, 4096, 2048, TileShape{128, 128, 64});
  return builder.workload();
}

}  // namespace

TEST_CASE("power: a steady GEMM at 95% of the cap never changes the clock (energy booked over each step's interval)") {
  test::PowerTestDevice device = steady_device();
  const Watts uncapped_w = uncapped_power_in_child(device, long_gemm_workload());
  device.cap_w = uncapped_w / 0.95;
  const auto result = run_workload(device.build(), long_gemm_workload());
  MESSAGE("uncapped " << uncapped_w << " W, cap " << device.cap_w << " W, " << result.power.clock_changes
                      << " clock changes");
  CHECK(result.power.clock_changes == 0);
  // Every whole window of the run's middle reads the steady power (no lumps of steps counted at their start).
  const double end_s = result.sim_time_s;
  for (const auto& sample : result.power.trace) {
    const double a = static_cast<double>(sample.start_fs) * 1e-15;
    if (a >= device.window_s && a + 2 * device.window_s <= end_s) CHECK(sample.power.total_w() <= device.cap_w);
  }
}

TEST_CASE("power: a steady GEMM at 110% of the cap settles at a clock whose power is within 3% of the cap") {
  test::PowerTestDevice device = steady_device();
  const Watts uncapped_w = uncapped_power_in_child(device, long_gemm_workload());
  device.cap_w = uncapped_w / 1.10;
  const auto result = run_workload(device.build(), long_gemm_workload());
  // Settled: the second half of the run, up to its tail. With states 10 MHz apart the governor may alternate
  // between two neighbours there; the average is what a sensor reads.
  const double from_s = result.sim_time_s / 2;
  const double to_s = result.sim_time_s - 2 * device.window_s;
  const Watts settled_w = trace_power_w(result.power, from_s, to_s);
  MESSAGE("uncapped " << uncapped_w << " W, cap " << device.cap_w << " W, settled " << settled_w << " W at "
                      << result.power.trace.back().clock_hz / 1e9 << " GHz after " << result.power.clock_changes
                      << " clock changes");
  CHECK(settled_w <= device.cap_w);
  CHECK(settled_w >= 0.97 * device.cap_w);
}

TEST_CASE("power: a streaming op's DRAM power in every window is at most the channels' peak x energy per byte") {
  // The memory system counts a request's bytes when it issues it, up to the units' outstanding limit ahead of the
  // channels; their energy is spent over the bursts that move them, so no window can read more than the channels
  // move at their peak rate (a lump of requests issued at the op's start would break this in its first window).
  test::PowerTestDevice device;
  device.spec.units = 16;
  const auto hw = device.build();
  const auto result = run_workload(hw, stream_workload());
  const double peak_w = hw.dram->peak_bandwidth_bytes_per_s() * device.dram_byte_j;
  double most_w = 0, dram_j = 0;
  for (const auto& sample : result.power.trace) {
    most_w = std::max(most_w, sample.power.other_dynamic_w);
    dram_j += sample.power.other_dynamic_w * static_cast<double>(sample.end_fs - sample.start_fs) * 1e-15;
  }
  Bytes dram = 0;
  for (const auto& [level, bytes] : result.ops.at(0).bytes) dram += level == "dram" ? bytes : 0;
  MESSAGE("stream: most DRAM power in a window " << most_w << " W, channels' peak " << peak_w << " W");
  CHECK(most_w <= peak_w * (1 + 1e-9));
  // Nothing is lost: the trace holds every byte's energy.
  CHECK(test::within(dram_j, static_cast<double>(dram) * device.dram_byte_j, 1e-9));
}

TEST_CASE("power: units holding work draw their energy per cycle x clock x (V/V0)^2 on top of their engines' work") {
  // A GEMM uncapped, with and without the per-unit clock energy: the difference is units x f x e over the units'
  // resident time, which for a GEMM filling every unit is the op's time less the ramps at its ends.
  test::PowerTestDevice device;
  const Watts without_w = uncapped_power_in_child(device, gemm_workload());
  auto hw = device.build();
  const Joules per_cycle_j = 100e-12;
  hw.power.active_unit_energy_per_cycle_j = per_cycle_j;
  const auto result = run_workload(hw, gemm_workload());
  const double added_w = result.power.ops.at(0).average_power_w - without_w;
  const double all_units_w = static_cast<double>(device.spec.units) * device.spec.clock_hz * per_cycle_j;
  MESSAGE("GEMM: " << added_w << " W added, " << all_units_w << " W with every unit active the whole op");
  CHECK(added_w <= all_units_w * (1 + 1e-9));
  CHECK(added_w >= 0.9 * all_units_w);
}
