// Refreshes in closed form: after a long idle stretch, or behind a PRE that a long write recovery (tWR) holds back,
// the channel that counts the repeating refreshes (no command log) serves the next requests exactly as the one that
// issues every REF (a command log asks for each command, so it walks the whole stretch), and counts the same.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/dram/dram_channel.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

using test::TestRequest;

// Two bursts of reads and writes over several banks, `idle` cycles apart.
std::vector<TestRequest> bursts_apart(Cycle idle) {
  std::vector<TestRequest> requests;
  for (const Cycle start : {Cycle{0}, idle}) {
    for (std::uint32_t i = 0; i < 24; ++i) {
      requests.push_back({start + i, i % 6, 100 + i % 4, 2, i % 3 == 0});
    }
  }
  return requests;
}

// A write, then a read of another row of its bank, which waits tWR for the PRE, and reads of other banks after it.
std::vector<TestRequest> write_then_conflict() {
  std::vector<TestRequest> requests = {{0, 0, 1, 2, true}, {1, 0, 2, 2, false}};
  for (std::uint32_t i = 0; i < 12; ++i) requests.push_back({2 + i, 1 + i % 5, 7, 1, i % 4 == 0});
  return requests;
}

// The channel that issues every REF and the one that counts repeating ones serve `requests` alike: the same
// completions, charged the same refreshes and precharges.
void serves_alike(DramChannel& stepped, DramChannel& counted, const std::vector<TestRequest>& requests) {
  const auto expected = test::run_channel(stepped, requests);
  const auto done = test::run_channel(counted, requests);
  REQUIRE(done.size() == expected.size());
  for (std::size_t i = 0; i < done.size(); ++i) {
    INFO("request " << i);
    CHECK(done[i].done == expected[i].done);
    CHECK(done[i].refresh_cycles == expected[i].refresh_cycles);
    CHECK(done[i].refreshes_all_bank == expected[i].refreshes_all_bank);
    CHECK(done[i].refreshes_per_bank == expected[i].refreshes_per_bank);
    CHECK(done[i].precharges == expected[i].precharges);
  }
}

void check_same_as_every_ref(const std::string& standard_name, RefreshMode mode, Cycle tWR_refresh_intervals = 0) {
  auto standard = test::standard(standard_name);
  const Cycle interval = mode == RefreshMode::per_bank ? standard.timing.tREFIsb : standard.timing.tREFI;
  if (tWR_refresh_intervals > 0) standard.timing.tWR = static_cast<std::uint32_t>(tWR_refresh_intervals * interval);
  DramChannel stepped(standard, test::policy(PagePolicy::open, mode));
  DramChannel counted(standard, test::policy(PagePolicy::open, mode));
  std::vector<IssuedCommand> log;
  stepped.set_command_log(&log);
  // Thousands of refresh intervals of idle, ending off the refresh grid.
  const Cycle idle = 5000 * interval + interval / 3;
  const auto requests = tWR_refresh_intervals > 0 ? write_then_conflict() : bursts_apart(idle);
  serves_alike(stepped, counted, requests);
  const Cycle end = 3 * std::max(idle, counted.counters().last_done);
  stepped.finish(end);
  counted.finish(end);
  const auto& a = stepped.counters();
  const auto& b = counted.counters();
  CHECK(b.refs_all_bank == a.refs_all_bank);
  CHECK(b.refs_per_bank == a.refs_per_bank);
  CHECK(b.refresh_bank_cycles == a.refresh_bank_cycles);
  CHECK(b.pres == a.pres);
  CHECK(b.acts == a.acts);
  // Every refresh interval up to the end got its REF: end / interval of them (none were postponed for good).
  CHECK(a.refs_all_bank + a.refs_per_bank == static_cast<std::uint64_t>(end / interval));
}

TEST_CASE("all-bank refresh through a long idle stretch: counted in closed form, the same as every REF issued") {
  check_same_as_every_ref("DDR4-3200", RefreshMode::all_bank);
  check_same_as_every_ref("HBM2-2000", RefreshMode::all_bank);
}

TEST_CASE("all-bank refresh behind a PRE held back by tWR = 3000 tREFI: the REFs due meanwhile, then on time") {
  check_same_as_every_ref("DDR4-3200", RefreshMode::all_bank, 3000);
  check_same_as_every_ref("HBM2-2000", RefreshMode::all_bank, 3000);
}

TEST_CASE("per-bank refresh through a long idle stretch: counted in closed form, the same as every REF issued") {
  check_same_as_every_ref("HBM2-2000", RefreshMode::per_bank);
  check_same_as_every_ref("DDR5-4800", RefreshMode::per_bank);
}

// Memoized replays end one after another while a channel stays idle: each end catches its refreshes up. Counted
// across those calls (the on-time refreshes in a row go on from one call to the next), they come out as every REF
// issued one by one, and the requests after them are served the same.
TEST_CASE("per-bank refresh caught up at many short idle stretches in a row: the same as every REF issued") {
  for (const std::string name : {"HBM2-2000", "DDR5-4800"}) {
    CAPTURE(name);
    const auto standard = test::standard(name);
    DramChannel stepped(standard, test::policy(PagePolicy::open, RefreshMode::per_bank));
    DramChannel counted(standard, test::policy(PagePolicy::open, RefreshMode::per_bank));
    std::vector<IssuedCommand> log;
    stepped.set_command_log(&log);
    const Cycle interval = standard.timing.tREFIsb;
    // A few rounds of per-bank refreshes per call, ending off the refresh grid.
    const Cycle step = 7 * interval * standard.banks() / 2 + interval / 5;
    Cycle at = 0;
    for (int call = 0; call < 200; ++call) {
      at += step;
      stepped.finish(at);
      counted.finish(at);
    }
    std::vector<TestRequest> requests;
    for (std::uint32_t i = 0; i < 24; ++i) requests.push_back({at + i, i % 6, 100 + i % 4, 2, i % 3 == 0});
    serves_alike(stepped, counted, requests);
    CHECK(counted.counters().refs_per_bank == stepped.counters().refs_per_bank);
    CHECK(counted.counters().refresh_bank_cycles == stepped.counters().refresh_bank_cycles);
    CHECK(counted.counters().pres == stepped.counters().pres);
    CHECK(stepped.counters().refs_per_bank >= static_cast<std::uint64_t>(at / interval) - 1);
  }
}
}  // namespace

// A memoized replay stands for an op whose record holds the refreshes of its interval: the channels issue the
// refreshes due through it at once (DramDevice::refresh_idle_until), so the first decision after it is charged none
// of them, while the channel counts the same refreshes as one that met them at that decision.
TEST_CASE("refreshes issued ahead through an idle stretch are counted once and not charged to the next decision") {
  for (const auto mode : {RefreshMode::all_bank, RefreshMode::per_bank}) {
    const auto standard = test::standard("HBM2-2000");
    const Cycle interval = mode == RefreshMode::per_bank ? standard.timing.tREFIsb : standard.timing.tREFI;
    DramChannel ahead(standard, test::policy(PagePolicy::open, mode));
    DramChannel plain(standard, test::policy(PagePolicy::open, mode));
    const Cycle idle = 100 * interval + interval / 3;
    ahead.finish(idle);
    const std::vector<TestRequest> requests = {{idle, 0, 5, 2, false}};
    const auto a = test::run_channel(ahead, requests);
    const auto p = test::run_channel(plain, requests);
    INFO("per-bank " << (mode == RefreshMode::per_bank));
    CHECK(p[0].refreshes_all_bank + p[0].refreshes_per_bank == 100);
    CHECK(a[0].refreshes_all_bank + a[0].refreshes_per_bank == 0);
    CHECK(a[0].refresh_cycles == 0);
    CHECK(ahead.counters().refs_all_bank == plain.counters().refs_all_bank);
    CHECK(ahead.counters().refs_per_bank == plain.counters().refs_per_bank);
  }
}

}  // namespace roofsim::dram
