// The shortest op memoized execution records with the detailed DRAM: 16 refreshes of a channel at the interval of the
// refresh mode the controller runs.
#include <doctest/doctest.h>

#include "sim/engine/op_replay.h"

namespace roofsim {

namespace {

// HBM3-6400's refresh timings (configs/dram/HBM3-6400.toml): tCK 0.625 ns, tREFI 3.9 us (6240 cycles), tREFIsb
// 243.75 ns (390 cycles), per-bank refresh.
DramParams hbm3(RefreshMode refresh) {
  DramParams dram;
  dram.standard.tck_s = 0.625e-9;
  dram.standard.timing.tREFI = 6240;
  dram.standard.timing.tREFIsb = 390;
  dram.standard.per_bank_refresh = true;
  dram.refresh = refresh;
  return dram;
}

bool near_fs(TimeFs a, TimeFs b) {
  return (a > b ? a - b : b - a) <= 1;
}

}  // namespace

TEST_CASE("shortest_record_fs_of is 16 tREFIsb under per-bank refresh, 16 tREFI under all-bank, 0 without refresh") {
  // The standard's own mode is per-bank: 16 x 243.75 ns = 3.9 us.
  CHECK(near_fs(shortest_record_fs_of(hbm3(RefreshMode::standard)), 3'900'000'000));
  CHECK(near_fs(shortest_record_fs_of(hbm3(RefreshMode::per_bank)), 3'900'000'000));
  // 16 x 3.9 us = 62.4 us.
  CHECK(near_fs(shortest_record_fs_of(hbm3(RefreshMode::all_bank)), 62'400'000'000));
  CHECK(shortest_record_fs_of(hbm3(RefreshMode::none)) == 0);
  // A standard without per-bank refresh runs all-bank under `standard`.
  DramParams ddr = hbm3(RefreshMode::standard);
  ddr.standard.per_bank_refresh = false;
  CHECK(near_fs(shortest_record_fs_of(ddr), 62'400'000'000));
}

}  // namespace roofsim
