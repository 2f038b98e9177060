#pragma once
// Sustainable DRAM bandwidth derived from the standard's timing: the all-row-hit and the all-row-miss rates that the
// DRAM-aware roofline blends by the row-hit rate h (DESIGN.md section 5). Plain arithmetic on DramParams, shared with
// the DRAM model's own checks (issue DRAM II), so both sides derive the same two lines the same way.
#include <cstdint>

#include "sim/config/dram_params.h"
#include "sim/core/units.h"

namespace roofsim {

// Per pseudo-channel (channel where there are none) and for the whole device. All rates are read streams.
struct DramRowBandwidth {
  Seconds burst_time_s = 0;             // one burst on the data pins: burst_bytes / pin bandwidth
  Seconds column_interval_s = 0;        // RD to RD of a stream: max(burst time, tCCD); tCCD_S when bank groups rotate
  Seconds act_interval_s = 0;           // ACT to ACT of an all-miss stream: the tightest of tRC/banks, tRRD, tFAW/4 and
                                        // the command bus
  double refresh_availability = 1;      // fraction of time the banks are not refreshing
  BytesPerSecond peak_bytes_per_s = 0;  // pin bandwidth of the device (no timing, no refresh)
  BytesPerSecond all_hit_bytes_per_s = 0;   // every burst hits an open row: column rate, less refresh
  BytesPerSecond all_miss_bytes_per_s = 0;  // every burst opens a new row: min(column rate, ACT rate), less refresh
};

// The row-hit and row-miss bandwidths of `channels` independent (pseudo-)channels of one standard.
//   hit:  burst_bytes / max(t_burst, tCCD)                       (column commands back to back)
//   miss: burst_bytes / max(t_burst, tCCD, t_ACT)                (one ACT per burst), where
//         t_ACT = max(tRC / banks, tRRD, tFAW / 4, t_cmd)        (bank cycling, ACT spacing, four-activate window,
//                                                                 row-command bus: ACT + PRE cycles, plus the column
//                                                                 command (cas_cycles) where the standard shares one
//                                                                 bus)
//   both x (1 - refresh busy fraction): all-bank tRFC / tREFI; per-bank tRFCsb / (tREFIsb x banks), since one bank
//   of `banks` is refreshing while the others serve.
// tCCD and tRRD are the _S values when the stream can rotate over bank groups (more than one), else the _L values.
// Sources: JEDEC JESD235D (HBM2), JESD238A (HBM3), JESD79-4 (DDR4), JESD79-5 (DDR5), JESD209-5 (LPDDR5) timing
// definitions; the ACT-limited rate argument follows Jacob, Ng and Wang, "Memory Systems" (2008), ch. 11-13.
[[nodiscard]] DramRowBandwidth dram_row_bandwidth(const DramStandardParams& standard, RefreshMode refresh,
                                                  std::uint32_t channels);

// The device's DRAM (all its stacks) with its configured refresh mode.
[[nodiscard]] DramRowBandwidth dram_row_bandwidth(const DramParams& dram);

// Bandwidth at row-hit rate h in [0, 1]: B(h) = min(B_hit, B_miss / (1 - h)). A burst holds the data bus for its
// column interval and a row miss adds an ACT, which the row resources (tRC over the banks, tRRD, tFAW, the row bus)
// issue while other banks' bursts use the data bus; so the two limits hold at once, as the roofline's compute and
// bandwidth do, and the lower one binds: N bursts take at least N / B_hit and their (1 - h) N ACTs at least
// (1 - h) N / B_miss. (DESIGN.md section 5 blends the two harmonically, as if an ACT stopped the data bus; the
// controller overlaps them, and streams ran up to 8% faster than that blend.) h outside [0, 1] is clamped.
[[nodiscard]] BytesPerSecond blended_dram_bandwidth(const DramRowBandwidth& rows, double row_hit_rate);

}  // namespace roofsim
