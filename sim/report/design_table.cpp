#include "sim/report/design_table.h"

#include <fmt/format.h>

#include "sim/report/console_table.h"

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
  if (!design.contains("cost_per_run")) return;
  const auto& per_run = design["cost_per_run"];
  std::string line = fmt::format(
      "amortised over {:g} years of continuous use ({:.3f} USD per device-hour; device cost only): {:.3g} USD per run",
      per_run["service_life_years"].get<double>(), per_run["usd_per_device_hour"].get<double>(),
      per_run["usd_per_run"].get<double>());
  if (per_run["usd_per_million_tokens"].is_number()) {
    line += fmt::format(", {:.4g} USD per million tokens ({} tokens per run through the {} layers built)",
                        per_run["usd_per_million_tokens"].get<double>(), per_run["tokens_per_run"].get<std::uint64_t>(),
                        per_run.value("model_layers_built", std::uint64_t{0}));
  } else {
    line += " (the workload states no token count: per run, not per token)";
  }
  out << wrap_words(line, kConsoleColumns, "  ") << "\n";
}

}  // namespace roofsim
