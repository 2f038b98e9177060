#include "sim/report/design_table.h"

#include <fmt/format.h>

namespace roofsim {

void write_design_line(const Report& report, std::ostream& out) {
  if (!report.extra.contains("design")) return;
  const auto& design = report.extra["design"];
  const auto& cost = design["cost"];
  out << fmt::format(
      "\ndesign ({}): die {:.0f} mm2 ({:.0f} mm2 SRAM), {:.1f} dies/wafer at {:.0f} % yield; cost {:.0f} USD "
      "(silicon {:.0f},\n  DRAM {:.0f}, interposer {:.0f}); power budget {:.0f} W (datasheet TDP {:.0f} W)\n",
      design["node"].get<std::string>(), design["area"]["total_mm2"].get<double>(),
      design["area"]["sram_mm2"].get<double>() + design["area"]["register_file_mm2"].get<double>(),
      cost["dies_per_wafer"].get<double>(), cost["yield_fraction"].get<double>() * 100, cost["total_usd"].get<double>(),
      cost["silicon_usd"].get<double>(), cost["dram_usd"].get<double>(), cost["interposer_usd"].get<double>(),
      design["power_budget"]["tdp_w"].get<double>(), design["power_budget"]["datasheet_tdp_w"].get<double>());
}

}  // namespace roofsim
