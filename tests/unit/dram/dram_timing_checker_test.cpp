// Each timing constraint of the checker alone, with the bundled standards' figures.
#include <doctest/doctest.h>

#include "models/dram/dram_timing_checker.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

DramTimingChecker checker_of(const DramStandardParams& standard) {
  return DramTimingChecker(CheckerTiming::from(standard), standard.bank_groups, standard.banks_per_group);
}

TEST_CASE("burst duration follows BL and the pin rate") {
  CHECK(CheckerTiming::from(test::standard("HBM2-2000")).burst == 2);    // BL4 on a DDR bus
  CHECK(CheckerTiming::from(test::standard("HBM3-6400")).burst == 2);    // BL8 at 4 beats per CK
  CHECK(CheckerTiming::from(test::standard("DDR4-3200")).burst == 4);    // BL8, DDR
  CHECK(CheckerTiming::from(test::standard("DDR5-4800")).burst == 8);    // BL16, DDR
  CHECK(CheckerTiming::from(test::standard("LPDDR5-6400")).burst == 2);  // BL16 at 8 beats per CK
}

TEST_CASE("two ACTs to one bank are at least tRC apart, and PRE waits tRAS, ACT after PRE tRP") {
  const auto standard = test::standard("DDR4-3200");
  auto checker = checker_of(standard);
  const auto& t = checker.timing();
  checker.issue(DramCommand::act, 0, 0);
  CHECK(checker.earliest(DramCommand::act, 0, 0) == t.tRC);
  const Cycle pre = checker.earliest(DramCommand::pre, 0, 0);
  CHECK(pre == t.tRAS);
  checker.issue(DramCommand::pre, 0, pre);
  CHECK(checker.earliest(DramCommand::act, 0, 0) == std::max(t.tRC, t.tRAS + t.tRP));
  CHECK(checker.earliest(DramCommand::rd, 0, 0) >= t.tRCD);
}

TEST_CASE("ACTs to other banks: tRRD_S across bank groups, tRRD_L within one") {
  const auto standard = test::standard("DDR4-3200");
  auto checker = checker_of(standard);
  const auto& t = checker.timing();
  const std::uint32_t per_group = standard.banks_per_group;
  checker.issue(DramCommand::act, 0, 0);
  CHECK(checker.earliest(DramCommand::act, per_group, 0) == t.tRRD_S);  // bank 0 of group 1
  CHECK(checker.earliest(DramCommand::act, 1, 0) == t.tRRD_L);          // bank 1 of group 0
}

TEST_CASE("a fifth ACT waits for tFAW") {
  const auto standard = test::standard("DDR4-3200");  // tFAW (34) > 4 x tRRD_S (16)
  auto checker = checker_of(standard);
  const auto& t = checker.timing();
  REQUIRE(t.tFAW > 4 * t.tRRD_S);
  const std::uint32_t per_group = standard.banks_per_group;
  for (std::uint32_t group = 0; group < 4; ++group) {
    const Cycle at = checker.earliest(DramCommand::act, group * per_group, 0);
    CHECK(at == group * t.tRRD_S);
    checker.issue(DramCommand::act, group * per_group, at);
  }
  CHECK(checker.earliest(DramCommand::act, 1, 0) == t.tFAW);
}

TEST_CASE("RD after WR waits tWL + burst + tWTR_L in the bank group, tWTR_S in another, WR after RD tRTW") {
  const auto standard = test::standard("HBM2-2000");
  auto checker = checker_of(standard);
  const auto& t = checker.timing();
  const std::uint32_t per_group = standard.banks_per_group;
  for (std::uint32_t bank = 0; bank < checker.banks(); ++bank) checker.issue(DramCommand::act, bank, 0, false);
  const Cycle write_at = 100;
  checker.issue(DramCommand::wr, 0, write_at);
  CHECK(checker.earliest(DramCommand::rd, 1, write_at) == write_at + t.tWL + t.burst + t.tWTR_L);
  CHECK(checker.earliest(DramCommand::rd, per_group, write_at) == write_at + t.tWL + t.burst + t.tWTR_S);
  const Cycle read_at = 400;
  checker.issue(DramCommand::rd, per_group, read_at);
  CHECK(checker.earliest(DramCommand::wr, 2 * per_group, read_at) == read_at + t.tRTW);
}

TEST_CASE("column commands: tCCD_L in a bank group, tCCD_S across, a gap before a recorded command is usable") {
  const auto standard = test::standard("HBM2-2000");
  auto checker = checker_of(standard);
  const auto& t = checker.timing();
  const std::uint32_t per_group = standard.banks_per_group;
  for (std::uint32_t bank = 0; bank < checker.banks(); ++bank) checker.issue(DramCommand::act, bank, 0, false);
  checker.issue(DramCommand::rd, 0, 100);
  CHECK(checker.earliest(DramCommand::rd, 1, 100) == 100 + std::max(t.tCCD_L, t.burst));
  CHECK(checker.earliest(DramCommand::rd, per_group, 100) == 100 + std::max(t.tCCD_S, t.burst));
  // Two-sided: a read may go before the recorded one when it leaves tCCD before it.
  CHECK(checker.earliest(DramCommand::rd, per_group, 50) == 50);
  CHECK(checker.earliest(DramCommand::rd, per_group, 99) == 100 + std::max(t.tCCD_S, t.burst));
}

TEST_CASE("REF blocks every bank for tRFC, a per-bank REF only its bank for tRFCsb") {
  const auto standard = test::standard("HBM2-2000");
  auto checker = checker_of(standard);
  const auto& t = checker.timing();
  checker.issue(DramCommand::ref_all, 0, 10);
  for (std::uint32_t bank = 0; bank < checker.banks(); ++bank) {
    CHECK(checker.earliest(DramCommand::act, bank, 0) == 10 + t.tRFC);
  }
  auto per_bank = checker_of(standard);
  per_bank.issue(DramCommand::ref_bank, 3, 10);
  CHECK(per_bank.earliest(DramCommand::act, 3, 0) == 10 + t.tRFCsb);
  CHECK(per_bank.earliest(DramCommand::act, 4, 0) < 10 + t.tRFCsb);
}

TEST_CASE("the command bus: a two-cycle ACT holds the row bus, HBM column commands use their own bus") {
  const auto standard = test::standard("HBM2-2000");
  REQUIRE(standard.separate_row_bus);
  auto checker = checker_of(standard);
  checker.issue(DramCommand::act, 0, 0);
  CHECK(checker.earliest(DramCommand::pre, 5, 0) == 2);   // ACT occupies cycles 0 and 1
  auto shared = checker_of(test::standard("DDR5-4800"));  // one CA bus, two-cycle ACT and RD
  shared.issue(DramCommand::act, 0, 0);
  shared.issue(DramCommand::ref_bank, 8, 2);
  CHECK(shared.earliest(DramCommand::pre, 9, 0) == 3);
}

}  // namespace
}  // namespace roofsim::dram
