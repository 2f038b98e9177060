// Runs of column commands (DramTimingChecker::place_columns): the checker places the bursts of one bank as a
// progression one period apart (tCCD_L rounded up to whole tCCD_S slots) in O(1) by arithmetic on the recorded runs.
// Checked here by brute force against every recorded command: the first burst goes to the earliest legal cycle, every
// placed burst is legal, and a run is cut exactly where its next burst would break a constraint.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "models/dram/dram_timing_checker.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

struct Recorded {
  Cycle at = 0;
  std::uint32_t group = 0;
  bool is_write = false;
  bool is_column = true;
};

// A second opinion on the column constraints, from the JEDEC pairwise gaps alone.
class BruteForce {
 public:
  BruteForce(const CheckerTiming& timing, std::uint32_t per_group) : t_(timing), per_group_(per_group) {}

  [[nodiscard]] bool column_legal(Cycle at, std::uint32_t bank, bool is_write) const {
    const std::uint32_t group = bank / per_group_;
    // No gap is 200 cycles long.
    for (auto it = commands_.lower_bound(at - 200); it != commands_.end() && it->first <= at + 200; ++it) {
      const auto& x = it->second;
      if (!x.is_column) {
        // A row command on a shared command bus holds it for its cycles.
        if (!t_.separate_row_bus && x.at < at + t_.cas_cycles && at < x.at + t_.act_cycles) return false;
        continue;
      }
      const bool same = x.group == group;
      if (at >= x.at && at - x.at < gap(x.is_write, is_write, same)) return false;
      if (at < x.at && x.at - at < gap(is_write, x.is_write, same)) return false;
      if (x.at < at + t_.cas_cycles && at < x.at + t_.cas_cycles) return false;
    }
    return true;
  }
  void add(const Recorded& command) { commands_.emplace(command.at, command); }

 private:
  [[nodiscard]] Cycle gap(bool first_write, bool second_write, bool same_group) const {
    if (first_write == second_write) return std::max(same_group ? t_.tCCD_L : t_.tCCD_S, t_.burst);
    if (!first_write) return t_.tRTW;
    return t_.tWL + t_.burst + (same_group ? t_.tWTR_L : t_.tWTR_S);
  }

  CheckerTiming t_;
  std::uint32_t per_group_;
  std::multimap<Cycle, Recorded> commands_;
};

void check_runs(const std::string& name) {
  CAPTURE(name);
  const auto standard = test::standard(name);
  const auto timing = CheckerTiming::from(standard);
  DramTimingChecker checker(timing, standard.bank_groups, standard.banks_per_group);
  BruteForce brute(timing, standard.banks_per_group);
  const Cycle period = checker.column_period();
  const Cycle slot = std::max(timing.tCCD_S, timing.burst);
  CHECK(period >= std::max(timing.tCCD_L, timing.burst));
  CHECK(period < std::max(timing.tCCD_L, timing.burst) + slot);
  CHECK(period % slot == 0);
  std::mt19937_64 random(11);
  std::size_t failures = 0, cut = 0;
  const auto fail = [&](const char* what, Cycle at) {
    if (failures++ < 6) MESSAGE(what, " at ", at);
  };
  Cycle decision = 0, last_end = 0;
  for (std::uint32_t i = 0; i < 1500; ++i) {
    // Decisions move forward; each places runs from a little after its cycle, as the controller does, and no further
    // ahead of the last placed burst than the controller's queue reaches: on the slower buses the runs would
    // otherwise pile up ever further ahead, and the brute force's scan of every earlier cycle grow with them.
    decision = std::max(decision + 24, last_end > 400 ? last_end - 400 : Cycle{0});
    checker.forget_before(decision);
    const auto bank = static_cast<std::uint32_t>(random() % checker.banks());
    if (random() % 4 == 0) {
      const Cycle act = checker.earliest(DramCommand::act, bank, decision);
      checker.issue(DramCommand::act, bank, act);
      brute.add(Recorded{act, bank / standard.banks_per_group, false, false});
      continue;
    }
    const bool is_write = random() % 5 == 0;
    const auto command = is_write ? DramCommand::wr : DramCommand::rd;
    const auto count = 1 + static_cast<std::uint32_t>(random() % 40);
    const Cycle not_before = decision + static_cast<Cycle>(random() % 100);
    const auto placed = checker.place_columns(command, bank, not_before, count);
    const Cycle lowest = std::max(not_before, checker.bank_ready(command, bank));
    for (Cycle t = lowest; t < placed.at; ++t) {
      if (brute.column_legal(t, bank, is_write)) fail("an earlier legal first burst", t);
    }
    REQUIRE(placed.count >= 1);
    REQUIRE(placed.count <= count);
    for (std::uint32_t j = 0; j < placed.count; ++j) {
      const Cycle at = placed.at + static_cast<Cycle>(j) * period;
      if (!brute.column_legal(at, bank, is_write)) fail("an illegal burst", at);
    }
    if (placed.count < count) {
      ++cut;
      if (brute.column_legal(placed.at + static_cast<Cycle>(placed.count) * period, bank, is_write)) {
        fail("a run cut before an illegal burst", placed.at);
      }
    }
    checker.issue_columns(command, bank, placed.at, placed.count);
    last_end = std::max(last_end, placed.at + static_cast<Cycle>(placed.count) * period);
    for (std::uint32_t j = 0; j < placed.count; ++j) {
      brute.add(Recorded{placed.at + static_cast<Cycle>(j) * period, bank / standard.banks_per_group, is_write});
    }
  }
  MESSAGE(name, ": ", cut, " runs cut at an obstacle");
  CHECK(cut > 0);
  CHECK(failures == 0);
}

TEST_CASE("a run of bursts goes to the earliest legal cycle, one period apart, cut at the first obstacle: HBM") {
  check_runs("HBM2-2000");
  check_runs("HBM2e-3200");
  check_runs("HBM3-6400");
}

TEST_CASE("a run of bursts goes to the earliest legal cycle, one period apart, cut at the first obstacle: DDR, LPDDR") {
  check_runs("DDR4-3200");
  check_runs("DDR5-4800");
  check_runs("LPDDR5-6400");
}

TEST_CASE("runs of other bank groups fill each other's gaps: four groups share the data bus at tCCD_S") {
  const auto standard = test::standard("HBM3-6400");
  const auto timing = CheckerTiming::from(standard);
  DramTimingChecker checker(timing, standard.bank_groups, standard.banks_per_group);
  REQUIRE(timing.tCCD_L == 2 * timing.tCCD_S);
  const std::uint32_t bursts = 32;
  std::vector<DramTimingChecker::ColumnPlacement> placed;
  for (std::uint32_t group = 0; group < 4; ++group) {
    placed.push_back(checker.place_columns(DramCommand::rd, group * standard.banks_per_group, 0, bursts));
    checker.issue_columns(DramCommand::rd, group * standard.banks_per_group, placed.back().at, placed.back().count);
  }
  // Two groups interleave at tCCD_S and fill the bus; the other two follow them, interleaved the same way.
  CHECK(placed[0].at == 0);
  CHECK(placed[1].at == timing.tCCD_S);
  CHECK(placed[2].at == static_cast<Cycle>(bursts) * timing.tCCD_L);
  CHECK(placed[3].at == static_cast<Cycle>(bursts) * timing.tCCD_L + timing.tCCD_S);
  for (const auto& run : placed) CHECK(run.count == bursts);
}

TEST_CASE("where tCCD_L is not a whole number of tCCD_S slots the runs of three bank groups still fill the data bus") {
  // HBM2 (tCCD_L 3 cycles, 2-cycle bursts), HBM2e at 3.2 Gb/s (5 cycles) and DDR5-4800 (12 cycles, 8-cycle bursts):
  // with runs tCCD_L apart, a second group's bursts fit in the gaps and a third's do not, and the bus idled a third
  // (a fifth) of the time. With a period of whole slots, three groups take every slot of the bus.
  for (const std::string name : {"HBM2-2000", "HBM2e-3200", "DDR5-4800"}) {
    CAPTURE(name);
    const auto standard = test::standard(name);
    const auto timing = CheckerTiming::from(standard);
    DramTimingChecker checker(timing, standard.bank_groups, standard.banks_per_group);
    const Cycle slot = std::max(timing.tCCD_S, timing.burst);
    REQUIRE(std::max(timing.tCCD_L, timing.burst) % slot != 0);
    REQUIRE(standard.bank_groups >= 3);
    const std::uint32_t bursts = 32;
    const std::uint32_t groups = static_cast<std::uint32_t>(checker.column_period() / slot);
    REQUIRE(groups <= standard.bank_groups);
    Cycle first = kNever, last = 0;
    std::uint32_t issued = 0;
    for (std::uint32_t group = 0; group < groups; ++group) {
      const auto placed = checker.place_columns(DramCommand::rd, group * standard.banks_per_group, 0, bursts);
      checker.issue_columns(DramCommand::rd, group * standard.banks_per_group, placed.at, placed.count);
      first = std::min(first, placed.at);
      last = std::max(last, placed.at + static_cast<Cycle>(placed.count - 1) * checker.column_period());
      issued += placed.count;
    }
    // Every slot from the first burst to the last carries one.
    CHECK(issued == groups * bursts);
    CHECK(last - first == static_cast<Cycle>(issued - 1) * slot);
  }
}

}  // namespace
}  // namespace roofsim::dram
