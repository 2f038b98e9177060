#include "sim/report/dram_run_writers.h"

#include <ostream>

#include <fmt/format.h>

#include "sim/config/enum_spellings.h"
#include "sim/config/quantity.h"

namespace roofsim {

nlohmann::ordered_json dram_run_json(const DramRunResult& result, const DramParams& dram, const std::string& workload) {
  const auto& summary = result.summary;
  const auto& stats = result.stats;
  nlohmann::ordered_json json;
  if (!result.complete) json["complete"] = false;
  json["standard"] = dram.standard.name;
  json["workload"] = workload;
  json["channels"] = summary.channels;
  json["mapping"] = dram.mapping;
  json["page_policy"] = std::string(to_string(dram.page_policy));
  json["scheduler"] = std::string(to_string(dram.scheduler));
  json["refresh"] = std::string(to_string(dram.refresh));
  json["read_requests"] = stats.read_requests;
  json["write_requests"] = stats.write_requests;
  json["bytes_read"] = stats.bytes_read;
  json["bytes_written"] = stats.bytes_written;
  json["sim_time_s"] = summary.duration_s;
  json["bandwidth_bytes_per_s"] = summary.bandwidth_bytes_per_s;
  json["peak_bandwidth_bytes_per_s"] = summary.peak_bytes_per_s;
  json["bandwidth_percent_of_peak"] = 100.0 * summary.bandwidth_fraction_of_peak;
  json["row_hit_rate"] = summary.row_hit_rate;
  json["row_hits"] = summary.row_hits;
  json["row_misses"] = summary.row_misses;
  json["row_conflicts"] = summary.row_conflicts;
  json["read_latency_s"] = {{"avg", summary.read_latency.avg_s},
                            {"p50", summary.read_latency.p50_s},
                            {"p99", summary.read_latency.p99_s},
                            {"max", summary.read_latency.max_s}};
  json["acts"] = summary.acts;
  json["acts_per_bank"] = summary.acts_per_bank;
  json["refreshes"] = summary.refreshes;
  json["refresh_time_share"] = summary.refresh_time_share;
  json["energy_j"] = {{"act", summary.energy.act_j},      {"pre", summary.energy.pre_j},
                      {"rd", summary.energy.rd_j},        {"wr", summary.energy.wr_j},
                      {"ref", summary.energy.ref_j},      {"background", summary.energy.background_j},
                      {"total", summary.energy.total_j()}};
  const double bits = 8.0 * static_cast<double>(stats.bytes_read + stats.bytes_written);
  json["energy_pj_per_bit"] = bits > 0 ? summary.energy.total_j() / bits * 1e12 : 0.0;
  return json;
}

void write_dram_summary(const DramRunResult& result, const DramParams& dram, const std::string& workload,
                        std::ostream& out) {
  const auto& summary = result.summary;
  const auto& stats = result.stats;
  const auto ns = [](double seconds) { return fmt::format("{:.1f} ns", seconds * 1e9); };
  out << fmt::format("DRAM {} x {} channel(s), mapping {}, {} page, {}, {} refresh: {}\n", dram.standard.name,
                     summary.channels, dram.mapping, std::string(to_string(dram.page_policy)),
                     dram.scheduler == DramScheduler::fcfs ? "FCFS" : "FR-FCFS", std::string(to_string(dram.refresh)),
                     workload);
  out << fmt::format("  requests        {} reads, {} writes, {} moved in {}\n", stats.read_requests,
                     stats.write_requests, format_bytes(stats.bytes_read + stats.bytes_written),
                     format_si(summary.duration_s, "s"));
  out << fmt::format("  bandwidth       {} = {:.1f}% of pin peak {}\n", format_si(summary.bandwidth_bytes_per_s, "B/s"),
                     100.0 * summary.bandwidth_fraction_of_peak, format_si(summary.peak_bytes_per_s, "B/s"));
  out << fmt::format("  row hit rate    {:.1f}% ({} hits, {} misses, {} conflicts, {} ACTs)\n",
                     100.0 * summary.row_hit_rate, summary.row_hits, summary.row_misses, summary.row_conflicts,
                     summary.acts);
  out << fmt::format("  read latency    avg {}, p50 {}, p99 {}, max {}\n", ns(summary.read_latency.avg_s),
                     ns(summary.read_latency.p50_s), ns(summary.read_latency.p99_s), ns(summary.read_latency.max_s));
  out << fmt::format("  refresh         {} commands, {:.2f}% of bank time\n", summary.refreshes,
                     100.0 * summary.refresh_time_share);
  const auto& energy = summary.energy;
  const double bits = 8.0 * static_cast<double>(stats.bytes_read + stats.bytes_written);
  out << fmt::format("  energy          {} = {:.2f} pJ/bit (ACT {}, PRE {}, RD {}, WR {}, REF {}, background {})\n",
                     format_si(energy.total_j(), "J"), bits > 0 ? energy.total_j() / bits * 1e12 : 0.0,
                     format_si(energy.act_j, "J"), format_si(energy.pre_j, "J"), format_si(energy.rd_j, "J"),
                     format_si(energy.wr_j, "J"), format_si(energy.ref_j, "J"), format_si(energy.background_j, "J"));
}

}  // namespace roofsim
