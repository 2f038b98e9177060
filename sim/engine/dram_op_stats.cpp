#include "sim/engine/dram_op_stats.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/dram/dram_stats.h"
#include "models/dram/dram_timing_checker.h"
#include "sim/roofline/dram_bandwidth.h"

namespace roofsim {

void fill_dram_op_stats(EngineDramAdapter& dram, const DramParams& params, RunResult& result) {
  // An interrupted run has requests in flight, so only a complete one must balance.
  if (result.complete && dram.asked_burst_bytes() != dram.served_burst_bytes()) {
    throw std::logic_error(fmt::format("DRAM: the engine asked for {} B in whole bursts, the controller served {} B",
                                       dram.asked_burst_bytes(), dram.served_burst_bytes()));
  }
  result.dram_asked_burst_bytes = dram.asked_burst_bytes();
  result.dram_served_burst_bytes = dram.served_burst_bytes();
  const auto summary = dram::summarize(dram.collect(), params.standard);
  result.dram_refresh_time_share = summary.refresh_time_share;

  const auto rows = dram_row_bandwidth(params);
  const auto timing = dram::CheckerTiming::from(params.standard);
  const Seconds tck = params.standard.tck_s;
  const double channels = static_cast<double>(std::max(1u, dram.channels()));
  // The bus gap a direction change leaves beyond one column-to-column interval (tCCD_S): write to read waits for the
  // write data and tWTR_L; read to write for tRTW (the checker's gaps, dram_timing_checker.cpp).
  const auto beyond_column = [&](dram::Cycle gap) {
    return static_cast<double>(std::max<dram::Cycle>(0, gap - timing.tCCD_S));
  };
  const double to_read_gap_s = beyond_column(timing.tWL + timing.burst + timing.tWTR_L) * tck;
  const double to_write_gap_s = beyond_column(timing.tRTW) * tck;

  std::uint64_t bursts = 0, opens = 0;
  const auto& counters = dram.op_counters();
  for (std::size_t i = 0; i < result.ops.size() && i < counters.size(); ++i) {
    const auto& c = counters[i];
    auto& op = result.ops[i];
    bursts += c.bursts;
    opens += c.row_opens;
    if (c.bursts == 0) continue;
    auto& d = op.dram;
    d.measured = true;
    d.bursts = c.bursts;
    d.row_opens = c.row_opens;
    d.turnarounds = c.turnarounds_to_read + c.turnarounds_to_write;
    d.acts = c.acts;
    d.pres = c.pres;
    d.reads = c.read_bursts;
    d.writes = c.write_bursts;
    d.refs_all_bank = c.refs_all_bank;
    d.refs_per_bank = c.refs_per_bank;
    d.row_hit_rate = 1.0 - static_cast<double>(c.row_opens) / static_cast<double>(c.bursts);
    d.ceiling_bytes_per_s = blended_dram_bandwidth(rows, d.row_hit_rate);
    const double refresh_channel_s = static_cast<double>(c.refresh_cycles) * tck;
    if (op.sim_time_s > 0) {
      d.refresh_share = std::min(1.0, refresh_channel_s / (channels * op.sim_time_s));
      d.efficiency = static_cast<double>(c.bytes) / (op.sim_time_s * rows.peak_bytes_per_s);
    }
    const double bytes = static_cast<double>(c.bytes);
    d.row_miss_loss_s = rows.all_hit_bytes_per_s > 0 && d.ceiling_bytes_per_s > 0
                            ? std::max(0.0, bytes / d.ceiling_bytes_per_s - bytes / rows.all_hit_bytes_per_s)
                            : 0.0;
    d.refresh_loss_s = refresh_channel_s / channels;
    d.turnaround_loss_s = (static_cast<double>(c.turnarounds_to_read) * to_read_gap_s +
                           static_cast<double>(c.turnarounds_to_write) * to_write_gap_s) /
                          channels;
  }
  result.dram_row_hit_rate = bursts > 0 ? 1.0 - static_cast<double>(opens) / static_cast<double>(bursts) : 0.0;
}

}  // namespace roofsim
