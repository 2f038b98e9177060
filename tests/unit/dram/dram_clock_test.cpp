// The DRAM clock's integer conversions round exactly as sc_time does at the kernel's resolution of 1 fs, for every
// bundled standard's tCK, so the controller may count in femtoseconds without moving a result.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include <systemc>

#include "models/dram/dram_clock.h"

using namespace roofsim;
using namespace roofsim::dram;

TEST_CASE("the DRAM clock converts cycles and femtoseconds as sc_time does") {
  REQUIRE(sc_core::sc_get_time_resolution() == sc_core::sc_time::from_value(1));
  // tCK of DDR4-3200, DDR5-4800, HBM2-2000, HBM2e-3200, HBM3-6400, HBM3e-8000, LPDDR5-6400, and awkward ones.
  const double periods_s[] = {0.625e-9,          1.0 / 2.4e9, 1e-9,        0.625e-9,  1.0 / 1.6e9,   0.5e-9,
                              1.0 / 0.8e9 / 1.0, 1.0 / 3.2e9, 1.0 / 1.2e9, 0.9375e-9, 1.0 / 1.333e9, 7.7e-10};
  std::mt19937_64 random(7);
  for (const double tck_s : periods_s) {
    CAPTURE(tck_s);
    const DramClock clock(tck_s);
    for (int i = 0; i < 20000; ++i) {
      // Small cycles one by one, then cycles up to some 20 minutes of simulated time.
      const std::int64_t cycle = i < 4000 ? i : static_cast<std::int64_t>(random() % (std::uint64_t{1} << 40));
      const auto expected = sc_core::sc_time(static_cast<double>(cycle) * tck_s, sc_core::SC_SEC);
      REQUIRE(clock.time_fs(cycle) == expected.value());
      // Times near a cycle start and anywhere.
      const TimeFs start_fs = expected.value();
      const TimeFs times_fs[] = {start_fs, start_fs + 1, cycle > 0 ? start_fs - 1 : 0,
                                 static_cast<TimeFs>(random() % (std::uint64_t{1} << 62))};
      for (const TimeFs fs : times_fs) {
        const auto time = sc_core::sc_time::from_value(fs);
        REQUIRE(DramClock::seconds(fs) == time.to_seconds());
        REQUIRE(clock.cycle_at_or_after(fs) == static_cast<std::int64_t>(std::ceil(time.to_seconds() / tck_s - 1e-6)));
      }
    }
  }
  // The closed forms: HBM2-2000's 1 ns cycle is 10^6 fs; a time two femtoseconds past a cycle start belongs to the next
  // cycle.
  const DramClock hbm2(1e-9);
  CHECK(hbm2.time_fs(3) == 3'000'000);
  CHECK(hbm2.cycle_at_or_after(3'000'000) == 3);
  CHECK(hbm2.cycle_at_or_after(3'000'002) == 4);
  CHECK(hbm2.cycle_at_or_after(0) == 0);
}
