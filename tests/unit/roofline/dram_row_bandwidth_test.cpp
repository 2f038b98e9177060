// The all-row-hit and all-row-miss DRAM bandwidths from the timing, each limiter in turn, and B(h): the lower of the
// column-rate and the ACT-rate limits at row-hit rate h.
#include <doctest/doctest.h>

#include "sim/roofline/dram_bandwidth.h"

using namespace roofsim;

namespace {

// An HBM-like pseudo-channel: 64-bit bus at 6.4 Gb/s per pin = 51.2 GB/s; BL8 -> 64 B bursts of 1.25 ns;
// tCK = 0.3125 ns, so a burst is 4 cycles.
DramStandardParams hbm_like() {
  DramStandardParams s;
  s.name = "test-hbm";
  s.family = "HBM3";
  s.separate_row_bus = true;
  s.data_rate_bits_per_s = 6.4e9;
  s.tck_s = 0.3125e-9;
  s.channels = 1;
  s.pseudo_channels = 1;
  s.bus_width_bits = 64;
  s.bank_groups = 4;
  s.banks_per_group = 4;
  s.row_bytes = 1024;
  s.timing.burst_length = 8;
  s.timing.tCCD_S = 4;  // 1.25 ns: column commands keep up with the pins
  s.timing.tCCD_L = 8;
  s.timing.tRC = 144;   // 45 ns / 16 banks = 2.8125 ns per ACT
  s.timing.tRRD_S = 8;  // 2.5 ns
  s.timing.tRRD_L = 12;
  s.timing.tFAW = 48;  // 15 ns / 4 = 3.75 ns per ACT: the limiter
  s.timing.act_cycles = 1;
  s.timing.pre_cycles = 1;
  s.timing.tRFC = 1120;    // 350 ns
  s.timing.tREFI = 12480;  // 3.9 us
  s.timing.tRFCsb = 480;   // 150 ns
  s.timing.tREFIsb = 780;  // 243.75 ns between per-bank refreshes
  return s;
}

}  // namespace

TEST_CASE("all-hit bandwidth is the pin rate when tCCD keeps up - all-miss is limited by tFAW") {
  const auto rows = dram_row_bandwidth(hbm_like(), RefreshMode::none, 1);
  CHECK(rows.burst_time_s == doctest::Approx(1.25e-9));
  CHECK(rows.peak_bytes_per_s == doctest::Approx(51.2e9));
  CHECK(rows.all_hit_bytes_per_s == doctest::Approx(51.2e9));
  CHECK(rows.act_interval_s == doctest::Approx(3.75e-9));
  CHECK(rows.all_miss_bytes_per_s == doctest::Approx(64.0 / 3.75e-9));
}

TEST_CASE("each ACT limiter binds in turn: tRC over banks / tRRD / command bus") {
  auto s = hbm_like();
  s.timing.tFAW = 16;
  CHECK(dram_row_bandwidth(s, RefreshMode::none, 1).act_interval_s == doctest::Approx(144 * 0.3125e-9 / 16));
  s.timing.tRC = 16;
  s.timing.tRAS = 8;
  CHECK(dram_row_bandwidth(s, RefreshMode::none, 1).act_interval_s == doctest::Approx(8 * 0.3125e-9));
  s.timing.tRRD_S = 1;
  s.timing.act_cycles = 3;
  s.timing.pre_cycles = 2;
  // HBM: separate row-command bus, ACT + PRE = 5 cycles.
  CHECK(dram_row_bandwidth(s, RefreshMode::none, 1).act_interval_s == doctest::Approx(5 * 0.3125e-9));
  // DDR shares one command bus with the column command: cas_cycles more (DDR5: 2).
  s.family = "DDR5";
  s.separate_row_bus = false;
  s.timing.cas_cycles = 2;
  CHECK(dram_row_bandwidth(s, RefreshMode::none, 1).act_interval_s == doctest::Approx(7 * 0.3125e-9));
}

TEST_CASE("a single bank group pays tCCD_L and tRRD_L") {
  auto s = hbm_like();
  s.bank_groups = 1;
  s.banks_per_group = 16;
  const auto rows = dram_row_bandwidth(s, RefreshMode::none, 1);
  CHECK(rows.column_interval_s == doctest::Approx(8 * 0.3125e-9));
  CHECK(rows.all_hit_bytes_per_s == doctest::Approx(64.0 / 2.5e-9));
  CHECK(rows.act_interval_s == doctest::Approx(3.75e-9));  // tFAW/4 still above tRRD_L = 3.75 ns: equal
}

TEST_CASE("refresh removes tRFC/tREFI (all-bank) or tRFCsb/(tREFIsb x banks) (per-bank) of the time") {
  const auto all_bank = dram_row_bandwidth(hbm_like(), RefreshMode::all_bank, 1);
  CHECK(all_bank.refresh_availability == doctest::Approx(1.0 - 1120.0 / 12480.0));
  CHECK(all_bank.all_hit_bytes_per_s == doctest::Approx(51.2e9 * (1.0 - 1120.0 / 12480.0)));
  const auto per_bank = dram_row_bandwidth(hbm_like(), RefreshMode::per_bank, 1);
  CHECK(per_bank.refresh_availability == doctest::Approx(1.0 - 480.0 / (780.0 * 16.0)));
}

TEST_CASE("channels multiply - B(h) is the lower of the column and ACT limits and hits its ends") {
  const auto rows = dram_row_bandwidth(hbm_like(), RefreshMode::none, 32);
  CHECK(rows.peak_bytes_per_s == doctest::Approx(32 * 51.2e9));
  const double hit = rows.all_hit_bytes_per_s;
  const double miss = rows.all_miss_bytes_per_s;
  REQUIRE(miss < hit);
  CHECK(blended_dram_bandwidth(rows, 1.0) == doctest::Approx(hit));
  CHECK(blended_dram_bandwidth(rows, 0.0) == doctest::Approx(miss));
  CHECK(blended_dram_bandwidth(rows, 1.7) == doctest::Approx(hit));
  // Below h* = 1 - B_miss / B_hit the ACTs bind: B(h) = B_miss / (1 - h); above it the column rate does.
  const double knee = 1.0 - miss / hit;
  CHECK(blended_dram_bandwidth(rows, knee / 2) == doctest::Approx(miss / (1.0 - knee / 2)));
  CHECK(blended_dram_bandwidth(rows, (1.0 + knee) / 2) == doctest::Approx(hit));
  double previous = 0;
  for (double h = 0.0; h <= 1.0; h += 0.125) {
    const double b = blended_dram_bandwidth(rows, h);
    CHECK(b <= hit * (1 + 1e-12));
    CHECK(b >= miss * (1 - 1e-12));
    CHECK(b >= previous);
    // Never below the time-weighted blend of the two rates (an ACT that stopped the data bus).
    CHECK(b >= 1.0 / (h / hit + (1.0 - h) / miss) * (1 - 1e-12));
    previous = b;
  }
}
