#include "sim/report/dram_table.h"

#include <ostream>
#include <string>

#include <fmt/format.h>

namespace roofsim {

void write_dram_table(const RunResult& result, std::ostream& out) {
  if (result.dram_model != "detailed") return;
  out << fmt::format(
      "\nDRAM (detailed model): row-hit rate {:.3f}, refresh {:.1f}% of bank time; per op, measured on its requests\n",
      result.dram_row_hit_rate, 100.0 * result.dram_refresh_time_share);
  const std::string header = fmt::format("{:<28} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10} {:>10}", "op", "row-hit",
                                         "refresh", "DRAM eff", "B(h) TB/s", "rows us", "refresh us", "turn us");
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (const auto& op : result.ops) {
    if (!op.dram.measured) continue;
    const auto& d = op.dram;
    out << fmt::format("{:<28} {:>8.3f} {:>7.1f}% {:>7.1f}% {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}\n", op.name,
                       d.row_hit_rate, 100.0 * d.refresh_share, 100.0 * d.efficiency, d.ceiling_bytes_per_s / 1e12,
                       d.row_miss_loss_s * 1e6, d.refresh_loss_s * 1e6, d.turnaround_loss_s * 1e6);
  }
}

}  // namespace roofsim
