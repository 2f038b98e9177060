// Refresh postponement: the RefreshManager owes refreshes falling due under load, never more than its limit, and the
// channel issues the owed ones when idle; over a window that ends idle the count is the non-postponing count exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/dram/dram_channel.h"
#include "models/dram/dram_policies.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

using test::TestRequest;

TEST_CASE("all-bank: a due refresh is postponed while requests are queued, up to the limit and no further") {
  RefreshManager refresh(RefreshMode::all_bank, 1000, 0, 16, 8);
  CHECK(refresh.owed_limit() == 8);
  CHECK_FALSE(refresh.may_postpone(0));  // nothing queued: refresh now
  for (int i = 0; i < 8; ++i) {
    REQUIRE(refresh.may_postpone(1));
    refresh.postpone();
  }
  CHECK(refresh.owed() == 8);
  CHECK(refresh.next_due() == 9 * 1000);  // the 9th is due 9 tREFI after the start, and must go out
  CHECK_FALSE(refresh.may_postpone(~std::uint64_t{0}));
  refresh.advance();  // the forced one
  CHECK(refresh.owed() == 8);
  for (int i = 0; i < 8; ++i) refresh.repay();
  CHECK(refresh.owed() == 0);
  refresh.repay();  // nothing owed: nothing to repay
  CHECK(refresh.owed() == 0);
  CHECK(refresh.next_due() == 10 * 1000);
}

TEST_CASE("per-bank: postponed while any bank has queued requests, up to 8 rounds") {
  RefreshManager refresh(RefreshMode::per_bank, 1600, 100, 16, 8);
  CHECK(refresh.owed_limit() == 8 * 16);  // 8 rounds of REFsb, as many refreshes of each bank as 8 all-bank ones
  CHECK_FALSE(refresh.may_postpone(0));
  CHECK(refresh.may_postpone(0x0001));
  for (int i = 0; i < 8 * 16; ++i) refresh.postpone();
  CHECK_FALSE(refresh.may_postpone(0xffff));
  CHECK(refresh.next_due() == (8 * 16 + 1) * 100);
  CHECK_FALSE(RefreshManager(RefreshMode::per_bank, 1600, 100, 16, 0).may_postpone(0xffff));
  CHECK_FALSE(RefreshManager(RefreshMode::none, 1600, 100, 16, 8).may_postpone(0xffff));
}

// Reads streamed over the four bank groups of a DDR4 channel from cycle 0, one request of `bursts` bursts per
// `period` cycles, `count` of them.
std::vector<TestRequest> stream(std::uint32_t count, std::uint32_t bursts, Cycle period) {
  std::vector<TestRequest> requests;
  for (std::uint32_t i = 0; i < count; ++i) {
    requests.push_back({static_cast<Cycle>(i) * period, (i % 4) * 4, 10 + i / 512, bursts, false});
  }
  return requests;
}

ChannelPolicy policy(RefreshMode mode, std::uint32_t postpone) {
  auto result = test::policy(PagePolicy::open, mode);
  result.refresh_postpone = postpone;
  return result;
}

Cycle last_done(const std::vector<SegmentDone>& done) {
  Cycle last = 0;
  for (const auto& part : done) last = std::max(last, part.done);
  return last;
}

TEST_CASE("a stream shorter than the postponement window sees no refresh, and the owed ones go out once it is idle") {
  const auto standard = test::standard("DDR4-3200");
  const Cycle tREFI = standard.timing.tREFI;
  // Back to back 8-burst reads (a burst every tCCD_S in turn over the bank groups), about 6 tREFI long: within the
  // 8 tREFI that may be owed.
  const auto requests = stream(static_cast<std::uint32_t>(6 * tREFI / 32), 8, 1);
  DramChannel none(standard, policy(RefreshMode::none, 0));
  DramChannel eager(standard, policy(RefreshMode::all_bank, 0));
  DramChannel postponing(standard, policy(RefreshMode::all_bank, 8));
  const auto expected = test::run_channel(none, requests);
  const auto stalled = test::run_channel(eager, requests);
  const auto done = test::run_channel(postponing, requests);
  const Cycle span = last_done(expected);
  REQUIRE(span > 5 * tREFI);
  REQUIRE(span < 8 * tREFI);
  CHECK(last_done(stalled) > span);  // refreshing on time stalls the stream
  REQUIRE(done.size() == expected.size());
  for (std::size_t i = 0; i < done.size(); ++i) {
    INFO("request " << i);
    REQUIRE(done[i].done == expected[i].done);
    REQUIRE(done[i].refresh_cycles == 0);
  }
  CHECK(postponing.counters().refs_all_bank == 0);
  // Idle from there: the owed refreshes, then one per tREFI; up to any cycle, as many as refreshing on time.
  const Cycle end = 40 * tREFI + tREFI / 2;
  postponing.finish(end);
  eager.finish(end);
  CHECK(postponing.counters().refs_all_bank == static_cast<std::uint64_t>(end / tREFI));
  CHECK(eager.counters().refs_all_bank == postponing.counters().refs_all_bank);
}

// The REF cycles of a run with a command log, in order.
std::vector<Cycle> refresh_cycles(const std::vector<IssuedCommand>& log) {
  std::vector<Cycle> cycles;
  for (const auto& command : log) {
    if (command.command == DramCommand::ref_all || command.command == DramCommand::ref_bank)
      cycles.push_back(command.at);
  }
  std::sort(cycles.begin(), cycles.end());
  return cycles;
}

void check_never_beyond_limit(const std::string& standard_name, RefreshMode mode, std::uint32_t postpone) {
  const auto standard = test::standard(standard_name);
  const Cycle interval = mode == RefreshMode::per_bank ? standard.timing.tREFIsb : standard.timing.tREFI;
  const Cycle tREFI = standard.timing.tREFI;
  DramChannel channel(standard, policy(mode, postpone));
  std::vector<IssuedCommand> log;
  channel.set_command_log(&log);
  // A busy channel for about 40 tREFI (8-burst requests at the pin rate), then idle.
  const auto per_request = static_cast<Cycle>(8 * standard.burst_cycles());
  const auto requests = stream(static_cast<std::uint32_t>(40 * tREFI / per_request), 8, 1);
  const auto done = test::run_channel(channel, requests);
  const Cycle busy_end = last_done(done);
  REQUIRE(busy_end > 30 * tREFI);
  const Cycle end = busy_end + 20 * tREFI;
  channel.finish(end);
  const auto cycles = refresh_cycles(log);
  const std::uint64_t limit = std::uint64_t{postpone} * (mode == RefreshMode::per_bank ? standard.banks() : 1);
  // The i-th refresh (from 1) is due at i intervals; with at most `limit` owed it goes out by the due cycle of the
  // (i + limit)-th, plus what closing the banks for it takes (bounded by tRFC here).
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    INFO("refresh " << i + 1);
    REQUIRE(cycles[i] <= static_cast<Cycle>(i + 1 + limit) * interval + standard.timing.tRFC);
  }
  // Under load the limit was reached (the rule was exercised), and over the whole window none is missing or extra.
  CHECK(cycles.size() == static_cast<std::size_t>(end / interval));
  bool reached = false;
  for (std::size_t i = 0; i < cycles.size() && !reached; ++i) {
    reached = cycles[i] >= static_cast<Cycle>(i + limit) * interval && cycles[i] < busy_end;
  }
  CHECK(reached);
  if (mode == RefreshMode::all_bank) {
    // JESD79-4: at most 9 tREFI between two REF (8 postponed), from the start of the run on.
    Cycle previous = 0;
    for (const Cycle at : cycles) {
      CHECK(at - previous <= static_cast<Cycle>(postpone + 1) * tREFI + standard.timing.tRFC);
      previous = at;
    }
  }
}

TEST_CASE("a long busy stretch never owes more than the limit, and the count over the window is the on-time count") {
  check_never_beyond_limit("DDR4-3200", RefreshMode::all_bank, 8);
  check_never_beyond_limit("HBM2-2000", RefreshMode::all_bank, 8);
  check_never_beyond_limit("HBM2-2000", RefreshMode::per_bank, 8);
  check_never_beyond_limit("DDR4-3200", RefreshMode::all_bank, 1);
}

TEST_CASE("a long stream loses the refresh duty cycle tRFC / tREFI, postponed or not") {
  const auto standard = test::standard("DDR4-3200");
  const auto& timing = standard.timing;
  const auto requests = stream(static_cast<std::uint32_t>(200 * timing.tREFI / 32), 8, 1);
  DramChannel none(standard, policy(RefreshMode::none, 0));
  DramChannel eager(standard, policy(RefreshMode::all_bank, 0));
  DramChannel postponing(standard, policy(RefreshMode::all_bank, 8));
  const double base = static_cast<double>(last_done(test::run_channel(none, requests)));
  const double eager_loss = 1.0 - base / static_cast<double>(last_done(test::run_channel(eager, requests)));
  const double loss = 1.0 - base / static_cast<double>(last_done(test::run_channel(postponing, requests)));
  const double duty = static_cast<double>(timing.tRFC) / static_cast<double>(timing.tREFI);
  // Beyond tRFC, each REF costs closing the open rows before it and opening them again after (tRP + tRCD, with the
  // last burst's tRTP): the bound above.
  const double overhead = static_cast<double>(timing.tRP + timing.tRCD + timing.tRTP) / timing.tREFI;
  MESSAGE("stream time lost to refresh: on time ", 100 * eager_loss, "%, postponed ", 100 * loss, "%, duty cycle ",
          100 * duty, "%");
  CHECK(loss >= duty * (1.0 - 8.0 / 200.0));  // the first 8 refreshes may still be owed at the end
  CHECK(loss <= duty + overhead);
  CHECK(eager_loss >= duty);
  CHECK(eager_loss <= duty + overhead);
}

}  // namespace
}  // namespace roofsim::dram
