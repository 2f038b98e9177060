// Unloaded latencies and throughput limits of one channel, against closed forms from the standard's timing.
#include <doctest/doctest.h>

#include <cmath>

#include "models/dram/dram_channel.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

using test::TestRequest;

TEST_CASE("unloaded read latency: closed bank tRCD + tCL + burst, open-row hit tCL + burst, conflict adds tRP") {
  const auto standard = test::standard("HBM2-2000");
  DramChannel channel(standard, test::policy());
  const auto& t = channel.checker().timing();
  // Far apart, so that each request finds the channel idle (and tRAS, tRTP long past).
  const std::vector<TestRequest> requests = {{0, 5, 7}, {1000, 5, 7}, {2000, 5, 9}};
  const auto done = test::run_channel(channel, requests);
  CHECK(done[0].done - 0 == t.tRCD + t.tCL + t.burst);
  CHECK(done[1].done - 1000 == t.tCL + t.burst);
  CHECK(done[2].done - 2000 == t.tRP + t.tRCD + t.tCL + t.burst);
  CHECK(channel.counters().row_misses == 1);
  CHECK(channel.counters().row_hits == 1);
  CHECK(channel.counters().row_conflicts == 1);
}

TEST_CASE("unloaded write latency: tRCDWR + tWL + burst to a closed bank") {
  const auto standard = test::standard("HBM2-2000");
  DramChannel channel(standard, test::policy());
  const auto& t = channel.checker().timing();
  const auto done = test::run_channel(channel, {{0, 2, 3, 1, true}});
  CHECK(done[0].done == t.tRCDWR + t.tWL + t.burst);
}

TEST_CASE("a single-bank row-hit stream issues one burst per tCCD_L") {
  // HBM2's tCCD_L (3 cycles) is not a whole number of 2-cycle slots: the channel's period is longer, and a run alone
  // must still go at tCCD_L.
  const auto standard = test::standard("HBM2-2000");
  DramChannel channel(standard, test::policy());
  const auto& t = channel.checker().timing();
  std::vector<TestRequest> requests(200, TestRequest{0, 3, 11, 1, false});
  const auto done = test::run_channel(channel, requests);
  Cycle first = kNever, last = 0;
  for (const auto& part : done) {
    first = std::min(first, part.done);
    last = std::max(last, part.done);
  }
  CHECK(last - first == 199 * std::max(t.tCCD_L, t.burst));
  CHECK(channel.counters().row_hits == 199);
}

TEST_CASE("misses to one bank issue one ACT per tRC") {
  for (const auto page : {PagePolicy::open, PagePolicy::closed}) {
    const auto standard = test::standard("DDR4-3200");
    DramChannel channel(standard, test::policy(page));
    std::vector<IssuedCommand> log;
    channel.set_command_log(&log);
    const auto& t = channel.checker().timing();
    std::vector<TestRequest> requests;
    for (std::uint64_t row = 0; row < 50; ++row) requests.push_back(TestRequest{0, 6, row, 1, false});
    (void)test::run_channel(channel, requests);
    std::vector<Cycle> acts;
    for (const auto& command : log) {
      if (command.command == DramCommand::act) acts.push_back(command.at);
    }
    REQUIRE(acts.size() == 50);
    std::sort(acts.begin(), acts.end());
    CHECK(acts.back() - acts.front() == 49 * std::max(t.tRC, t.tRAS + t.tRP));
  }
}

// Misses spread over all banks: the ACT rate is bound by tRRD_S (alternating bank groups), tFAW / 4, tRC / banks
// and the command bus. Closed page, one burst per request.
Cycle act_interval(const CheckerTiming& t, std::uint32_t banks, Cycle bus_cycles_per_request) {
  const double interval = std::max({static_cast<double>(t.tRRD_S), static_cast<double>(t.tFAW) / 4.0,
                                    static_cast<double>(t.tRC) / banks, static_cast<double>(bus_cycles_per_request)});
  return static_cast<Cycle>(interval * 4);  // over four ACTs, to stay in integers
}

std::vector<Cycle> act_times_over_banks(const DramStandardParams& standard, std::uint32_t requests) {
  DramChannel channel(standard, test::policy(PagePolicy::closed));
  std::vector<IssuedCommand> log;
  channel.set_command_log(&log);
  std::vector<TestRequest> list;
  const std::uint32_t groups = standard.bank_groups, per_group = standard.banks_per_group;
  for (std::uint32_t i = 0; i < requests; ++i) {
    // Bank groups rotate fastest, so consecutive ACTs go to different groups.
    const std::uint32_t bank = (i % groups) * per_group + (i / groups) % per_group;
    list.push_back(TestRequest{0, bank, i, 1, false});
  }
  (void)test::run_channel(channel, list);
  std::vector<Cycle> acts;
  for (const auto& command : log) {
    if (command.command == DramCommand::act) acts.push_back(command.at);
  }
  std::sort(acts.begin(), acts.end());
  return acts;
}

TEST_CASE("misses over many banks: ACTs limited by tFAW on DDR4, by tRRD_S on HBM2") {
  for (const char* name : {"DDR4-3200", "HBM2-2000"}) {
    const auto standard = test::standard(name);
    const auto t = CheckerTiming::from(standard);
    const auto acts = act_times_over_banks(standard, 401);
    REQUIRE(acts.size() == 401);
    const Cycle per_four = act_interval(t, standard.banks(), 1);
    // On DDR4's single command bus a RD may hold the cycle the fifth ACT wants: at most one cycle per window.
    CHECK(acts.back() - acts.front() >= 100 * per_four);
    CHECK(acts.back() - acts.front() <= 100 * (per_four + (standard.separate_row_bus ? 0 : 1)));
  }
}

TEST_CASE("misses over many banks: a long ACT command makes the command bus the limit") {
  auto standard = test::standard("HBM2-2000");  // ACTs have the row bus to themselves (auto-precharge needs none)
  standard.timing.tRRD_S = standard.timing.tRRD_L = 1;
  standard.timing.tFAW = 0;
  standard.timing.act_cycles = 6;
  const auto acts = act_times_over_banks(standard, 201);
  REQUIRE(acts.size() == 201);
  CHECK(acts.back() - acts.front() == 200 * 6);
}

TEST_CASE("a refresh is due every tREFI (all-bank) or tREFIsb (per-bank), also when idle") {
  const auto standard = test::standard("HBM2-2000");
  DramChannel all_bank(standard, test::policy(PagePolicy::open, RefreshMode::all_bank));
  all_bank.finish(10 * static_cast<Cycle>(standard.timing.tREFI));
  CHECK(all_bank.counters().refs_all_bank == 10);
  DramChannel per_bank(standard, test::policy(PagePolicy::open, RefreshMode::per_bank));
  per_bank.finish(10 * static_cast<Cycle>(standard.timing.tREFI));
  CHECK(per_bank.counters().refs_per_bank == 10 * standard.timing.tREFI / standard.timing.tREFIsb);
}

TEST_CASE("refresh costs about (tRFC + closing and re-opening the row) / tREFI of a row-hit stream") {
  const auto standard = test::standard("HBM2-2000");
  const auto t = CheckerTiming::from(standard);
  const Cycle refi = standard.timing.tREFI;
  std::vector<TestRequest> requests(static_cast<std::size_t>(30 * refi / t.tCCD_L), TestRequest{0, 0, 1, 1, false});
  Cycle spans[2] = {0, 0};
  for (int with_refresh = 0; with_refresh < 2; ++with_refresh) {
    DramChannel channel(standard,
                        test::policy(PagePolicy::open, with_refresh ? RefreshMode::all_bank : RefreshMode::none));
    const auto done = test::run_channel(channel, requests);
    for (const auto& part : done) spans[with_refresh] = std::max(spans[with_refresh], part.done);
  }
  const double measured = static_cast<double>(spans[1] - spans[0]) / static_cast<double>(spans[1]);
  // Per refresh the data bus idles from the last RD to the first after: tRTP + tRP + tRFC + tRCD instead of tCCD_L.
  const double expected = static_cast<double>(t.tRTP + t.tRP + t.tRFC + t.tRCD - t.tCCD_L) / static_cast<double>(refi);
  MESSAGE("refresh overhead of a row-hit stream: ", 100 * measured, "%, closed form ", 100 * expected, "%");
  CHECK(std::abs(measured / expected - 1.0) < 0.1);
}

}  // namespace
}  // namespace roofsim::dram
