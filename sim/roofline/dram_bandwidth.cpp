#include "sim/roofline/dram_bandwidth.h"

#include <algorithm>
#include <cmath>

namespace roofsim {

DramRowBandwidth dram_row_bandwidth(const DramStandardParams& standard, RefreshMode refresh, std::uint32_t channels) {
  DramRowBandwidth rows;
  const auto& t = standard.timing;
  const Seconds tck = standard.tck_s;
  const double burst_bytes = static_cast<double>(standard.burst_bytes());
  const double channel_bw = standard.channel_bandwidth_bytes_per_s();
  const bool rotate_groups = standard.bank_groups > 1;
  const double banks = std::max(1.0, static_cast<double>(standard.banks()));

  rows.burst_time_s = channel_bw > 0 ? burst_bytes / channel_bw : 0.0;
  const Seconds tccd_s = (rotate_groups ? t.tCCD_S : t.tCCD_L) * tck;
  rows.column_interval_s = std::max(rows.burst_time_s, tccd_s);

  const Seconds trrd_s = (rotate_groups ? t.tRRD_S : t.tRRD_L) * tck;
  // HBM has separate row and column command buses (JESD235/JESD238); DDR4/DDR5/LPDDR5 share one, so each miss's
  // column command takes its slot between the row commands there.
  // The pseudo-channels of an HBM channel take turns on its row bus (shared_command_bus): each gets its share.
  const double sharing =
      standard.shared_command_bus ? std::max(1.0, static_cast<double>(standard.pseudo_channels)) : 1.0;
  const double command_cycles =
      sharing * static_cast<double>(t.act_cycles + t.pre_cycles + (standard.separate_row_bus ? 0U : t.cas_cycles));
  rows.act_interval_s = std::max({t.tRC * tck / banks, trrd_s, t.tFAW * tck / 4.0, command_cycles * tck});

  double refresh_busy = 0.0;
  if (refresh == RefreshMode::all_bank && t.tREFI > 0) {
    refresh_busy = static_cast<double>(t.tRFC) / t.tREFI;
  } else if (refresh == RefreshMode::per_bank && t.tREFIsb > 0) {
    refresh_busy = static_cast<double>(t.tRFCsb) / (static_cast<double>(t.tREFIsb) * banks);
  }
  rows.refresh_availability = std::clamp(1.0 - refresh_busy, 0.0, 1.0);

  const double n = static_cast<double>(channels);
  rows.peak_bytes_per_s = channel_bw * n;
  if (rows.column_interval_s > 0) {
    rows.all_hit_bytes_per_s = n * burst_bytes / rows.column_interval_s * rows.refresh_availability;
    rows.all_miss_bytes_per_s =
        n * burst_bytes / std::max(rows.column_interval_s, rows.act_interval_s) * rows.refresh_availability;
  }
  return rows;
}

DramRowBandwidth dram_row_bandwidth(const DramParams& dram) {
  return dram_row_bandwidth(dram.standard, dram.resolved_refresh(), dram.channels());
}

BytesPerSecond blended_dram_bandwidth(const DramRowBandwidth& rows, double row_hit_rate) {
  const double h = std::clamp(row_hit_rate, 0.0, 1.0);
  if (rows.all_hit_bytes_per_s <= 0 || rows.all_miss_bytes_per_s <= 0) return 0.0;
  if (h >= 1.0) return rows.all_hit_bytes_per_s;  // no ACT: the column rate alone
  return std::min(rows.all_hit_bytes_per_s, rows.all_miss_bytes_per_s / (1.0 - h));
}

}  // namespace roofsim
