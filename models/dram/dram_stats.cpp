#include "models/dram/dram_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>

namespace roofsim::dram {

namespace {

// Sorts non-negative doubles (latencies) by a radix sort of their bit patterns, which order as the values do; a
// million samples sort several times faster than by comparisons. Any negative value falls back to std::sort.
void sort_latencies(std::vector<double>& samples) {
  if (samples.size() < 4096 ||
      std::any_of(samples.begin(), samples.end(), [](double x) { return std::signbit(x) || std::isnan(x); })) {
    std::sort(samples.begin(), samples.end());
    return;
  }
  std::vector<std::uint64_t> keys(samples.size()), other(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) std::memcpy(&keys[i], &samples[i], sizeof(double));
  constexpr unsigned kDigitBits = 16;
  std::vector<std::size_t> counts(std::size_t{1} << kDigitBits);
  for (unsigned shift = 0; shift < 64; shift += kDigitBits) {
    std::fill(counts.begin(), counts.end(), 0);
    for (const auto key : keys) ++counts[(key >> shift) & 0xFFFF];
    if (counts[(keys[0] >> shift) & 0xFFFF] == keys.size()) continue;  // one digit value: the pass changes nothing
    std::size_t sum = 0;
    for (auto& count : counts) sum += std::exchange(count, sum);
    for (const auto key : keys) other[counts[(key >> shift) & 0xFFFF]++] = key;
    keys.swap(other);
  }
  for (std::size_t i = 0; i < samples.size(); ++i) std::memcpy(&samples[i], &keys[i], sizeof(double));
}

}  // namespace

LatencySummary summarize_latency(std::vector<double> samples) {
  LatencySummary summary;
  if (samples.empty()) return summary;
  sort_latencies(samples);
  const auto rank = [&](double q) {
    const auto index = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples.size())));
    return samples[std::min(samples.size(), std::max<std::size_t>(1, index)) - 1];
  };
  // Summed in sorted order so that the mean does not depend on completion order.
  summary.avg_s = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  summary.p50_s = rank(0.50);
  summary.p99_s = rank(0.99);
  summary.max_s = samples.back();
  return summary;
}

DramSummary summarize(const DramRunStats& stats, const DramStandardParams& standard) {
  DramSummary summary;
  summary.channels = static_cast<std::uint32_t>(stats.channels.size());
  summary.duration_s = std::max(0.0, stats.last_done_s - stats.first_arrival_s);
  const Bytes bytes = stats.bytes_read + stats.bytes_written;
  summary.bandwidth_bytes_per_s = summary.duration_s > 0 ? static_cast<double>(bytes) / summary.duration_s : 0.0;
  summary.peak_bytes_per_s = standard.channel_bandwidth_bytes_per_s() * summary.channels;
  summary.bandwidth_fraction_of_peak =
      summary.peak_bytes_per_s > 0 ? summary.bandwidth_bytes_per_s / summary.peak_bytes_per_s : 0.0;

  const auto& energy = standard.energy;
  const double banks = static_cast<double>(std::max(1u, standard.banks()));
  double refresh_bank_cycles = 0;
  for (const auto& channel : stats.channels) {
    summary.row_hits += channel.row_hits;
    summary.row_misses += channel.row_misses;
    summary.row_conflicts += channel.row_conflicts;
    summary.acts += channel.acts;
    summary.pres += channel.pres;
    summary.refreshes += channel.refs_all_bank + channel.refs_per_bank;
    summary.acts_per_bank.push_back(channel.acts_per_bank);
    refresh_bank_cycles += static_cast<double>(channel.refresh_bank_cycles);
    summary.energy.act_j += energy.act_j * static_cast<double>(channel.acts);
    summary.energy.pre_j += energy.pre_j * static_cast<double>(channel.pres);
    summary.energy.rd_j += energy.rd_j * static_cast<double>(channel.read_bursts);
    summary.energy.wr_j += energy.wr_j * static_cast<double>(channel.write_bursts);
    // A per-bank refresh refreshes one bank's share of an all-bank refresh.
    summary.energy.ref_j += energy.ref_j * (static_cast<double>(channel.refs_all_bank) +
                                            static_cast<double>(channel.refs_per_bank) / banks);
  }
  summary.energy.background_j = energy.background_w * summary.duration_s * summary.channels;
  const std::uint64_t accesses = summary.row_hits + summary.row_misses + summary.row_conflicts;
  summary.row_hit_rate = accesses > 0 ? static_cast<double>(summary.row_hits) / static_cast<double>(accesses) : 0.0;
  const double bank_time_cycles = banks * summary.channels * (stats.last_done_s / standard.tck_s);
  summary.refresh_time_share = bank_time_cycles > 0 ? refresh_bank_cycles / bank_time_cycles : 0.0;
  summary.read_latency = summarize_latency(stats.read_latency_s);
  return summary;
}

}  // namespace roofsim::dram
