// Mixed random traffic through a channel, then every pair of issued commands checked against every constraint of
// the standard, independently of how the checker computes them (a brute-force second opinion on the two-sided,
// commit-ahead scheduling).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

#include "models/dram/dram_channel.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

bool is_column(DramCommand command) {
  return command == DramCommand::rd || command == DramCommand::wr;
}

// The minimum distance from `first` to a later `second`; 0 when none applies.
Cycle required_gap(const CheckerTiming& t, std::uint32_t per_group, const IssuedCommand& first,
                   const IssuedCommand& second) {
  const bool same_bank = first.bank == second.bank;
  const bool same_group = first.bank / per_group == second.bank / per_group;
  const auto a = first.command, b = second.command;
  Cycle gap = 0;
  if (a == DramCommand::act && b == DramCommand::act) {
    gap = same_bank ? t.tRC : same_group ? t.tRRD_L : t.tRRD_S;
  }
  if (same_bank && a == DramCommand::act && b == DramCommand::pre) gap = t.tRAS;
  if (same_bank && a == DramCommand::pre && b == DramCommand::act) gap = t.tRP;
  if (same_bank && a == DramCommand::act && b == DramCommand::rd) gap = t.tRCD;
  if (same_bank && a == DramCommand::act && b == DramCommand::wr) gap = t.tRCDWR;
  if (same_bank && a == DramCommand::rd && b == DramCommand::pre) gap = t.tRTP;
  if (same_bank && a == DramCommand::wr && b == DramCommand::pre) gap = t.tWL + t.burst + t.tWR;
  if (is_column(a) && is_column(b)) {
    if (a == b) gap = std::max(same_group ? t.tCCD_L : t.tCCD_S, t.burst);
    if (a == DramCommand::rd && b == DramCommand::wr) gap = t.tRTW;
    if (a == DramCommand::wr && b == DramCommand::rd) gap = t.tWL + t.burst + (same_group ? t.tWTR_L : t.tWTR_S);
  }
  if (a == DramCommand::ref_all && b == DramCommand::act) gap = t.tRFC;
  if (a == DramCommand::ref_bank && b == DramCommand::act && same_bank) gap = t.tRFCsb;
  return gap;
}

Cycle bus_cycles(const CheckerTiming& t, const IssuedCommand& command) {
  if (!command.uses_bus) return 0;
  switch (command.command) {
    case DramCommand::act: return t.act_cycles;
    case DramCommand::pre: return t.pre_cycles;
    case DramCommand::rd:
    case DramCommand::wr: return t.cas_cycles;
    default: return 1;
  }
}

void verify(const std::string& name, PagePolicy page, RefreshMode refresh, double read_share) {
  CAPTURE(name);
  const auto standard = test::standard(name);
  DramChannel channel(standard, test::policy(page, refresh));
  std::vector<IssuedCommand> log;
  channel.set_command_log(&log);
  std::mt19937_64 random(7);
  std::vector<test::TestRequest> requests;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    test::TestRequest request;
    request.arrival = static_cast<Cycle>(i) * 3;
    request.bank = static_cast<std::uint32_t>(random() % standard.banks());
    request.row = random() % 4;  // a few rows per bank: hits, misses and conflicts
    request.bursts = 1 + static_cast<std::uint32_t>(random() % 4);
    request.is_write = static_cast<double>(random() % 1000) >= read_share * 1000;
    requests.push_back(request);
  }
  (void)test::run_channel(channel, requests);
  const auto t = CheckerTiming::from(standard);
  std::stable_sort(log.begin(), log.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  std::size_t violations = 0;
  std::vector<Cycle> acts;
  // The first few violations are shown, to find them in the log.
  const auto violation = [&](const char* kind, const IssuedCommand& first, const IssuedCommand& second) {
    if (violations++ < 6) {
      MESSAGE(kind, ": command ", static_cast<int>(first.command), " bank ", first.bank, " at ", first.at,
              ", then command ", static_cast<int>(second.command), " bank ", second.bank, " at ", second.at);
    }
  };
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log[i].command == DramCommand::act) acts.push_back(log[i].at);
    for (std::size_t j = i + 1; j < log.size() && log[j].at - log[i].at < 1000; ++j) {
      if (log[j].at - log[i].at < required_gap(t, standard.banks_per_group, log[i], log[j])) {
        violation("gap", log[i], log[j]);
      }
      const bool shared = !t.separate_row_bus || is_column(log[i].command) == is_column(log[j].command);
      if (shared && log[i].at + bus_cycles(t, log[i]) > log[j].at && bus_cycles(t, log[j]) > 0) {
        violation("command bus", log[i], log[j]);
      }
    }
  }
  for (std::size_t i = 0; i + 4 < acts.size(); ++i) {
    if (acts[i + 4] - acts[i] < t.tFAW) ++violations;
  }
  CHECK(log.size() > 3000);
  CHECK(violations == 0);
}

TEST_CASE("no issued command violates a constraint: HBM2, open page, all-bank refresh, reads and writes") {
  verify("HBM2-2000", PagePolicy::open, RefreshMode::all_bank, 0.7);
}
TEST_CASE("no issued command violates a constraint: DDR4, closed page, all-bank refresh") {
  verify("DDR4-3200", PagePolicy::closed, RefreshMode::all_bank, 0.5);
}
TEST_CASE("no issued command violates a constraint: DDR5, adaptive page, per-bank refresh") {
  verify("DDR5-4800", PagePolicy::adaptive, RefreshMode::per_bank, 0.6);
}
TEST_CASE("no issued command violates a constraint: HBM3 and LPDDR5, open page, per-bank refresh") {
  verify("HBM3-6400", PagePolicy::open, RefreshMode::per_bank, 0.8);
  verify("LPDDR5-6400", PagePolicy::open, RefreshMode::per_bank, 0.8);
}

}  // namespace
}  // namespace roofsim::dram
