#pragma once
// Statistics of a DRAM run: the counters the channels keep, and the figures derived from them at the end
// (bandwidth, row-hit rate, latency percentiles, refresh share, energy by command). Plain C++.
#include <cstdint>
#include <vector>

#include "models/dram/dram_channel.h"
#include "models/dram/dram_params.h"
#include "sim/core/units.h"

namespace roofsim::dram {

struct DramRunStats {
  std::vector<ChannelCounters> channels;
  std::vector<double> read_latency_s;  // one per completed read request, in completion order
  std::uint64_t read_requests = 0, write_requests = 0;
  Bytes bytes_read = 0, bytes_written = 0;
  Seconds first_arrival_s = 0;  // of the first request
  Seconds last_done_s = 0;      // of the last request
};

struct LatencySummary {
  Seconds avg_s = 0, p50_s = 0, p99_s = 0, max_s = 0;
};

struct DramEnergySummary {
  Joules act_j = 0, pre_j = 0, rd_j = 0, wr_j = 0, ref_j = 0, background_j = 0;
  [[nodiscard]] Joules total_j() const { return act_j + pre_j + rd_j + wr_j + ref_j + background_j; }
};

struct DramSummary {
  std::uint32_t channels = 0;
  Seconds duration_s = 0;  // first arrival to last completion
  BytesPerSecond bandwidth_bytes_per_s = 0;
  BytesPerSecond peak_bytes_per_s = 0;  // pin bandwidth of the simulated channels
  double bandwidth_fraction_of_peak = 0;
  double row_hit_rate = 0;  // hits / (hits + misses + conflicts), over request parts
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0, acts = 0, pres = 0, refreshes = 0;
  LatencySummary read_latency;
  double refresh_time_share = 0;                          // fraction of bank time blocked by refresh
  std::vector<std::vector<std::uint64_t>> acts_per_bank;  // [channel][bank]
  DramEnergySummary energy;
};

// Nearest-rank percentile (0 < q <= 1) of unsorted samples; 0 for none.
[[nodiscard]] LatencySummary summarize_latency(std::vector<double> samples);
[[nodiscard]] DramSummary summarize(const DramRunStats& stats, const DramStandardParams& standard);

}  // namespace roofsim::dram
