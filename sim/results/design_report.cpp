#include "sim/results/design_report.h"

#include <algorithm>

#include "sim/design/design_model.h"

namespace roofsim {

double amortised_usd_per_s(double device_usd, double service_life_years) {
  constexpr double kSecondsPerYear = 365.25 * 86400;
  return device_usd / (service_life_years * kSecondsPerYear);
}

std::uint64_t tokens_per_run(const nlohmann::ordered_json& model) {
  if (!model.contains("phase") || !model.contains("batch_sequences")) return 0;
  const auto phase = model["phase"].get<std::string>();
  const auto batch = model["batch_sequences"].get<std::uint64_t>();
  if (phase == "decode") return batch;
  if (!model.contains("seq_tokens")) return 0;
  return batch * model["seq_tokens"].get<std::uint64_t>();
}

void add_design_report(Report& report, const HardwareParams& hardware) {
  const auto estimate = maybe_estimate_design(hardware);
  if (!estimate) return;
  const auto& area = estimate->area;
  const auto& cost = estimate->cost;
  const auto& power = estimate->power;
  nlohmann::ordered_json levels = nlohmann::ordered_json::object();
  for (const auto& level : area.levels) {
    levels[level.name] = {{"capacity_on_die_mib", level.capacity_on_die_mib}, {"area_mm2", level.area_mm2}};
  }
  double peak_flops_per_s = 0;
  for (const auto type : kAllDataTypes) {
    for (const auto& engine : hardware.compute.engines) {
      peak_flops_per_s = std::max(peak_flops_per_s, engine.peak_flops_per_s(type, hardware.compute.units));
    }
  }
  nlohmann::ordered_json design = {
      {"node", estimate->node},
      {"area",
       {{"total_mm2", area.total_mm2},
        {"units_on_die", area.units_on_die},
        {"unit_mm2", area.unit_mm2},
        {"compute_logic_mm2", area.compute_logic_mm2},
        {"register_file_mm2", area.register_file_mm2},
        {"sram_mm2", area.sram_mm2},
        {"levels", levels},
        {"noc_mm2", area.noc_mm2},
        {"dram_interface_mm2", area.dram_interface_mm2},
        {"links_mm2", area.links_mm2},
        {"other_mm2", area.other_mm2},
        {"sram_on_die_mib", area.sram_mib}}},
      {"cost",
       {{"total_usd", cost.total_usd},
        {"die_mm2", cost.die_mm2},
        {"dies_per_wafer", cost.dies_per_wafer},
        {"yield_fraction", cost.yield},
        {"silicon_usd", cost.silicon_usd},
        {"dram_usd", cost.dram_usd},
        {"interposer_usd", cost.interposer_usd},
        {"assembly_test_usd", cost.assembly_test_usd},
        {"usd_per_peak_tflops", peak_flops_per_s > 0 ? cost.total_usd / (peak_flops_per_s / 1e12) : 0.0}}},
      {"power_budget",
       {{"tdp_w", power.tdp_w},
        {"datasheet_tdp_w", hardware.power.tdp_w},
        {"compute_w", power.compute_w},
        {"active_units_w", power.active_units_w},
        {"sram_dynamic_w", power.sram_dynamic_w},
        {"dram_w", power.dram_w},
        {"links_w", power.links_w},
        {"logic_leakage_w", power.logic_leakage_w},
        {"sram_leakage_w", power.sram_leakage_w}}},
  };
  if (report.total_sim_time_s && *report.total_sim_time_s > 0 && report.total_useful_flops() > 0) {
    const double achieved = static_cast<double>(report.total_useful_flops()) / *report.total_sim_time_s;
    design["cost"]["usd_per_achieved_tflops"] = cost.total_usd / (achieved / 1e12);
  }
  if (report.total_sim_time_s && *report.total_sim_time_s > 0) {
    const double life_years = hardware.design.cost.service_life_years;
    const double usd_per_s = amortised_usd_per_s(cost.total_usd, life_years);
    const double usd_per_run = usd_per_s * *report.total_sim_time_s;
    nlohmann::ordered_json per_run = {
        {"basis",
         "the device cost (silicon, DRAM, interposer, assembly) spread evenly over cost.service_life_years of "
         "continuous use, charged for the run's simulated time; no energy, host, network or datacenter cost"},
        {"service_life_years", life_years},
        {"usd_per_device_hour", usd_per_s * 3600},
        {"usd_per_run", usd_per_run},
        {"tokens_per_run", nullptr},
        {"usd_per_million_tokens", nullptr}};
    const auto tokens = report.extra.contains("model") ? tokens_per_run(report.extra["model"]) : 0;
    if (tokens > 0) {
      per_run["tokens_per_run"] = tokens;
      per_run["usd_per_million_tokens"] = usd_per_run / static_cast<double>(tokens) * 1e6;
      // A model built with fewer layers than it has costs less per token than the whole model would.
      per_run["model_layers_built"] = report.extra["model"].value("layers_built", std::uint64_t{0});
    }
    design["cost_per_run"] = per_run;
  }
  report.extra["design"] = design;
}

}  // namespace roofsim
