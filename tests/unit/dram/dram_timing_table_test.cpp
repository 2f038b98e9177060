// The timing checker's copy of a standard's timing is made from the one timing table: every constraint arrives in
// 64-bit cycles unchanged, for every bundled standard.
#include <doctest/doctest.h>

#include <iterator>
#include <string>

#include "models/dram/dram_timing_checker.h"
#include "tests/unit/dram/dram_test_support.h"

using namespace roofsim;
using namespace roofsim::dram;

TEST_CASE("the checker holds every constraint of the timing table, for every bundled standard") {
  const auto& source = dram_timing_fields<std::uint32_t>();
  const auto& target = dram_timing_fields<Cycle>();
  REQUIRE(std::size(source) == std::size(target));
  for (const std::string name :
       {"HBM2-2000", "HBM2e-3200", "HBM3-6400", "HBM3e-8000", "DDR4-3200", "DDR5-4800", "LPDDR5-6400"}) {
    const auto standard = dram::test::standard(name);
    const auto timing = CheckerTiming::from(standard);
    for (std::size_t i = 0; i < std::size(source); ++i) {
      INFO(name << " " << source[i].key);
      CHECK(source[i].key == target[i].key);
      CHECK(standard.timing.*source[i].member > 0);
      CHECK(timing.*target[i].member == static_cast<Cycle>(standard.timing.*source[i].member));
    }
    CHECK(timing.act_cycles == std::max<Cycle>(1, standard.timing.act_cycles));
    CHECK(timing.cas_cycles == std::max<Cycle>(1, standard.timing.cas_cycles));
    CHECK(timing.separate_row_bus == standard.separate_row_bus);
  }
}
