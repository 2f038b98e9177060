// An idle channel's refreshes in closed form: after a long idle stretch, the channel that counts the repeated rounds
// of refreshes (no command log) serves the next requests exactly as the one that issues every REF (a command log
// asks for each command, so it walks the whole stretch), and counts the same refreshes.
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

void check_same_as_every_ref(const std::string& standard_name, RefreshMode mode) {
  const auto standard = test::standard(standard_name);
  DramChannel stepped(standard, test::policy(PagePolicy::open, mode));
  DramChannel counted(standard, test::policy(PagePolicy::open, mode));
  std::vector<IssuedCommand> log;
  stepped.set_command_log(&log);
  const auto& t = counted.checker().timing();
  const Cycle interval = mode == RefreshMode::per_bank ? t.tREFIsb : t.tREFI;
  // Thousands of refresh intervals of idle, ending off the refresh grid.
  const Cycle idle = 5000 * interval + interval / 3;
  const auto requests = bursts_apart(idle);
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
  const Cycle end = 3 * idle;
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

TEST_CASE("per-bank refresh through a long idle stretch: counted in closed form, the same as every REF issued") {
  check_same_as_every_ref("HBM2-2000", RefreshMode::per_bank);
  check_same_as_every_ref("DDR5-4800", RefreshMode::per_bank);
}

}  // namespace
}  // namespace roofsim::dram
