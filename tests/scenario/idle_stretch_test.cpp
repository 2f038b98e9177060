// Simulated idle time costs no work: a cluster whose links take 1 s per traversal spends minutes of simulated time
// waiting on the network, and a DRAM whose write recovery (tWR) is 100 ms waits that long after each write; the power
// governor sleeps through those stretches (a few wakes each, never one per window) and the idle DRAM counts its
// refreshes in closed form. The power trace still tiles the run, and its samples' energy is the ledger's: the one
// sample over an idle stretch is the windows' samples added up. (Bounds on counts of work, never on wall time.)
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "sim/config/cluster_params.h"
#include "sim/config/hardware_params.h"
#include "sim/engine/cluster_run.h"
#include "sim/engine/engine.h"
#include "sim/graph/workload.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// The schema caps a link's latency at 10 ms; set in code, 1 s is what a run must get through without cost.
ClusterParams h100_cluster_with_1s_links() {
  auto cluster = load_cluster(test::config_path("clusters/8xH100-NVSwitch.toml"));
  cluster.link.latency_s = 1.0;
  return cluster;
}

// The windows a rank's links are busy in (each busy period's windows and the two it starts and ends in): the
// governor judges each of them, since a message's link energy is spent there.
std::uint64_t link_busy_windows(const ClusterRunResult& result, std::uint64_t rank, Seconds window_s) {
  const std::string prefix = "dev" + std::to_string(rank) + "->";
  std::uint64_t windows = 0;
  for (const auto& link : result.links) {
    if (link.name.rfind(prefix, 0) != 0) continue;
    for (const auto& [begin, end] : link.periods)
      windows += static_cast<std::uint64_t>(std::ceil((end - begin) / window_s)) + 2;
  }
  return windows;
}

// The power trace tiles [0, end of the run] and its samples' energy adds up to the run's energy.
void check_trace_tiles_the_run(const PowerRunStats& power) {
  REQUIRE_FALSE(power.trace.empty());
  CHECK(power.trace.front().start_fs == 0);
  Joules energy_j = 0;
  for (std::size_t i = 0; i < power.trace.size(); ++i) {
    if (i > 0) CHECK(power.trace[i].start_fs == power.trace[i - 1].end_fs);
    energy_j += power.trace[i].energy_j;
  }
  CHECK(energy_j == doctest::Approx(power.energy_j).epsilon(1e-9));
}

}  // namespace

TEST_CASE("collectives over 1 s links: minutes of simulated waiting, a few governor wakes per collective") {
  const auto cluster = h100_cluster_with_1s_links();
  const auto workload = load_workload(test::workload_path("collectives.toml"), {}, cluster.device);
  const auto result = run_cluster(cluster, workload);
  REQUIRE(result.complete);
  // A ring AllReduce alone takes 2 (p - 1) = 14 steps of at least one link traversal each.
  CHECK(result.sim_time_s > 14.0);
  const auto& rank = result.simulated.front().result;
  // One wake per 10 us window would be sim_time / 10 us, millions; the device has no compute, so each collective
  // costs the governor the wake its completion asks for and the window end after it, and the windows in which its
  // links carry its messages (their link power), not the seconds the messages spend in flight.
  const double windows = result.sim_time_s / 10e-6;
  const auto busy = link_busy_windows(result, result.simulated.front().rank, 10e-6);
  MESSAGE("simulated " << result.sim_time_s << " s (" << windows << " windows): " << rank.power.governor_wakes
                       << " governor wakes, " << rank.power.trace.size() << " power samples, " << busy
                       << " windows with busy links");
  CHECK(busy < 1000);
  CHECK(rank.power.governor_wakes <= 4 * workload.ops.size() + 4 + busy);
  CHECK(rank.power.trace.size() <= 4 * workload.ops.size() + 4 + busy);
  check_trace_tiles_the_run(rank.power);
}

TEST_CASE("tensor-parallel decode over 1 s links: the governor wakes per window of compute, not per idle window") {
  const auto cluster = h100_cluster_with_1s_links();
  const auto workload = load_workload(test::workload_path("tp_decode.toml"), {}, cluster.device);
  const auto result = run_cluster(cluster, workload);
  REQUIRE(result.complete);
  const auto& simulated = result.simulated.front();
  const Seconds window_s = 10e-6;
  // The windows that hold compute, plus a few wakes per collective (each device's AllReduces wait on the links).
  const auto compute_windows = static_cast<std::uint64_t>(std::ceil(simulated.step.compute_s / window_s));
  std::size_t collectives = 0;
  for (const auto& op : workload.ops) collectives += is_collective(op.kind) ? 1 : 0;
  MESSAGE("simulated " << result.sim_time_s << " s, compute " << simulated.step.compute_s * 1e6 << " us ("
                       << compute_windows << " windows), " << collectives
                       << " collectives: " << simulated.result.power.governor_wakes << " governor wakes, "
                       << simulated.result.power.trace.size() << " power samples");
  const auto busy = link_busy_windows(result, simulated.rank, window_s);
  MESSAGE(busy << " windows with busy links");
  CHECK(result.sim_time_s > 14.0 * static_cast<double>(collectives));
  CHECK(simulated.result.power.governor_wakes <= 2 * compute_windows + 4 * collectives + 4 + busy);
  CHECK(simulated.result.power.trace.size() <= 2 * compute_windows + 4 * collectives + 4 + busy);
  check_trace_tiles_the_run(simulated.result.power);
}

TEST_CASE("a DRAM whose write recovery is 100 ms: the run ends with its last column command, not its recovery") {
  // The schema caps a DRAM timing at 1 ms; set in code, tWR = 100 ms holds every PRE after a write that long. A
  // request leaves its queue entry when its column command issues, so a stream whose written rows are not opened
  // again ends before their recovery: neither the governor nor the refresh may step through the 100 ms behind it.
  auto hardware = load_hardware(test::config_path("H100-SXM5.toml"), {{"dram.model", "detailed"}});
  auto& standard = hardware.dram->standard;
  standard.timing.tWR = static_cast<std::uint32_t>(std::llround(100e-3 / standard.tck_s));
  const auto workload = load_workload(test::workload_path("stream.toml"), {{"params.elements", "65536"}}, hardware);
  const auto result = run_workload(hardware, workload);
  REQUIRE(result.complete);
  CHECK(result.sim_time_s < 1e-3);
  const double windows = result.sim_time_s / 10e-6;
  MESSAGE("simulated " << result.sim_time_s << " s (" << windows << " windows): " << result.power.governor_wakes
                       << " governor wakes, " << result.power.trace.size() << " power samples, " << result.events
                       << " events");
  CHECK(static_cast<double>(result.power.governor_wakes) <= std::ceil(windows) + 2);
  check_trace_tiles_the_run(result.power);
}
