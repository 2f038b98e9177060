#include "sim/design/design_model.h"

#include <algorithm>
#include <cmath>

namespace roofsim {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGB = 1e9;
constexpr double kUm2PerMm2 = 1e6;
constexpr double kMm2PerCm2 = 100.0;

// Area of one fused multiply-add (multiplier plus adder) at 45 nm, um^2, from M. Horowitz, "Computing's energy
// problem (and what we can do about it)", ISSCC 2014, the table of operation areas: 8-bit integer multiply 282 and
// add 36; fp16 multiply 1640 and add 1360; fp32 multiply 7700 and add 4184. The others are estimates from those:
// fp64 scales the fp32 multiplier by the square of the significand widths (53/24)^2 = 4.88 and doubles the adder;
// bf16 and tf32 (8 and 11 significand bits) are taken at fp16's area, fp8 at int8's.
double fma_area_45nm_um2(DataType type) {
  switch (type) {
    case DataType::int8:
    case DataType::fp8: return 282 + 36;
    case DataType::fp16:
    case DataType::bf16:
    case DataType::tf32: return 1640 + 1360;
    case DataType::fp32: return 7700 + 4184;
    case DataType::fp64: return 7700 * 4.88 + 4184 * 2;
  }
  return 0;
}

// Logic density of the 45 nm reference node, MTr/mm^2 (Intel 45 nm, M. Bohr, IDF 2007, as tabulated by WikiChip),
// the node of the areas above; a node's engines scale by this over its own logic density.
constexpr double kReferenceLogicDensity_mtr_per_mm2 = 3.33;
// A special-function unit (reciprocal, rsqrt, exp2 by table lookup and quadratic interpolation) is taken as four fp32
// FMAs of area (estimate: S. Oberman, "Floating point division and square root algorithms and implementation in the
// AMD-K7", ARITH 1999, and the NVIDIA SFU design of Oberman and Siu, ARITH 2005, use a table and a few multipliers).
constexpr double kSpecialFunctionFmaEquivalents = 4.0;

double sram_mm2(double mib, const TechnologyParams& tech, bool high_current) {
  return mib * 8.0 / tech.sram_density_mbit_per_mm2 * (high_current ? tech.sram_high_current_area_ratio : 1.0);
}

}  // namespace

double dies_per_wafer(double wafer_diameter_mm, double die_area_mm2) {
  if (!(die_area_mm2 > 0)) return 0;
  const double d = wafer_diameter_mm;
  return std::max(0.0, kPi * d * d / 4.0 / die_area_mm2 - kPi * d / std::sqrt(2.0 * die_area_mm2));
}

double negative_binomial_yield(double die_area_mm2, double defect_density_per_cm2, double alpha) {
  const double faults = die_area_mm2 / kMm2PerCm2 * defect_density_per_cm2;
  return std::pow(1.0 + faults / alpha, -alpha);
}

double engine_datapath_area_45nm_um2(const EngineParams& engine) {
  double fma_array = 0;
  for (const auto& [type, flops] : engine.flops_per_cycle) {
    fma_array = std::max(fma_array, flops / 2.0 * fma_area_45nm_um2(type));
  }
  double special = 0;
  for (const auto op_class : {EngineOpClass::exp2, EngineOpClass::reciprocal, EngineOpClass::rsqrt}) {
    const auto found = engine.ops_per_cycle.find(op_class);
    if (found != engine.ops_per_cycle.end()) special = std::max(special, found->second);
  }
  return fma_array + special * kSpecialFunctionFmaEquivalents * fma_area_45nm_um2(DataType::fp32);
}

DesignEstimate estimate_design(const HardwareParams& hw) {
  const auto& tech = *hw.design.technology;
  const auto& area_in = hw.design.area;
  DesignEstimate design;
  design.node = tech.node;
  auto& area = design.area;

  area.units_on_die = hw.compute.units + area_in.units_disabled;
  const double units = static_cast<double>(area.units_on_die);
  double datapath_45nm_um2 = 0;
  for (const auto& engine : hw.compute.engines) datapath_45nm_um2 += engine_datapath_area_45nm_um2(engine);
  const double logic_per_unit_mm2 = datapath_45nm_um2 / kUm2PerMm2 * kReferenceLogicDensity_mtr_per_mm2 /
                                    tech.logic_density_mtr_per_mm2 * tech.logic_calibration;
  const double register_file_mib = static_cast<double>(area_in.register_file_per_unit_bytes) / kMiB;
  const double register_file_per_unit_mm2 = sram_mm2(register_file_mib, tech, true);
  area.compute_logic_mm2 = logic_per_unit_mm2 * units;
  area.register_file_mm2 = register_file_per_unit_mm2 * units;
  area.sram_mib = register_file_mib * units;
  area.unit_mm2 = logic_per_unit_mm2 + register_file_per_unit_mm2 + tech.noc_mm2_per_port;

  double device_banks = 0;
  for (const auto& level : hw.levels) {
    const auto found = area_in.levels.find(level.name);
    const LevelAreaParams level_in = found != area_in.levels.end() ? found->second : LevelAreaParams{};
    const bool per_unit = level.scope == LevelScope::unit;
    const double copies = per_unit ? units : 1.0;
    const double mib = static_cast<double>(level.capacity_bytes + level_in.capacity_disabled_bytes) / kMiB * copies;
    const double banks = static_cast<double>(level.banks) * copies;
    const double mm2 = sram_mm2(mib, tech, level_in.macro == "hc") + banks * tech.sram_bank_periphery_mm2;
    area.levels.push_back({level.name, mib, mm2});
    area.sram_mm2 += mm2;
    area.sram_mib += mib;
    if (per_unit) {
      area.unit_mm2 += mm2 / copies;
    } else {
      device_banks += static_cast<double>(level.banks);
    }
  }
  area.noc_mm2 = (units + device_banks) * tech.noc_mm2_per_port;
  const double interfaces = hw.dram ? static_cast<double>(hw.dram->stacks + area_in.dram_interfaces_disabled) : 0.0;
  area.dram_interface_mm2 = interfaces * tech.hbm_interface_mm2;
  area.links_mm2 = static_cast<double>(hw.interconnect.links) * hw.interconnect.link_bandwidth_bytes_per_s / kGB *
                   tech.serdes_mm2_per_gbyte_per_s;
  area.other_mm2 = area_in.other_mm2;
  area.total_mm2 = area.compute_logic_mm2 + area.register_file_mm2 + area.sram_mm2 + area.noc_mm2 +
                   area.dram_interface_mm2 + area.links_mm2 + area.other_mm2;

  auto& cost = design.cost;
  const auto& cost_in = hw.design.cost;
  const double dies = static_cast<double>(area_in.dies);
  cost.die_mm2 = area.total_mm2 / dies;
  cost.dies_per_wafer = dies_per_wafer(tech.wafer_diameter_mm, cost.die_mm2);
  cost.yield = negative_binomial_yield(cost.die_mm2, tech.defect_density_per_cm2, tech.defect_clustering);
  cost.good_dies_per_wafer = cost.dies_per_wafer * cost.yield;
  cost.silicon_usd = cost.good_dies_per_wafer > 0 ? tech.wafer_cost_usd / cost.good_dies_per_wafer * dies : 0.0;
  const double stacks = hw.dram ? static_cast<double>(hw.dram->stacks) : 0.0;
  if (hw.dram) cost.dram_usd = static_cast<double>(hw.dram->capacity_bytes) / kGB * cost_in.dram_usd_per_gbyte;
  // A single die without stacks sits on an organic substrate; dies beside stacks or each other need the interposer.
  if (stacks > 0 || area_in.dies > 1) {
    cost.interposer_usd = (area.total_mm2 + stacks * cost_in.hbm_stack_footprint_mm2) * cost_in.interposer_area_ratio *
                          cost_in.interposer_usd_per_mm2;
  }
  cost.assembly_test_usd = cost_in.assembly_test_usd;
  cost.total_usd = cost.silicon_usd + cost.dram_usd + cost.interposer_usd + cost.assembly_test_usd;

  auto& power = design.power;
  Hertz peak_clock_hz = hw.power.nominal_clock_hz;
  for (const auto& engine : hw.compute.engines) {
    for (const auto& [type, energy_j] : engine.energy_per_flop_j) {
      const auto rate = engine.flops_per_cycle.find(type);
      if (rate == engine.flops_per_cycle.end()) continue;
      const double watts = static_cast<double>(hw.compute.units) * rate->second * engine.clock_hz * energy_j;
      if (watts > power.compute_w) {
        power.compute_w = watts;
        peak_clock_hz = engine.clock_hz;
      }
    }
  }
  // The clock power of units holding work (power.active_unit_energy per unit and cycle at the nominal voltage), drawn
  // beside the engines' work whenever every unit runs, at the clock of the hungriest engine's peak: part of what the
  // board spends there, as in the simulated power domain.
  power.active_units_w =
      static_cast<double>(hw.compute.units) * hw.power.active_unit_energy_per_cycle_j * peak_clock_hz;
  for (const auto& level : hw.levels) power.sram_dynamic_w += level.bandwidth_bytes_per_s * level.energy_per_byte_j;
  if (hw.dram) power.dram_w = hw.dram->peak_bandwidth_bytes_per_s() * hw.dram->energy_per_byte_j;
  power.links_w = 2.0 * hw.interconnect.bandwidth_bytes_per_s() * hw.interconnect.energy_per_byte_j;
  const double logic_mm2 = area.total_mm2 - area.sram_mm2 - area.register_file_mm2;
  power.logic_leakage_w = logic_mm2 * tech.logic_leakage_w_per_mm2;
  power.sram_leakage_w = area.sram_mib * tech.sram_leakage_w_per_mib;
  power.tdp_w = power.compute_w + power.active_units_w + power.sram_dynamic_w + power.dram_w + power.links_w +
                power.logic_leakage_w + power.sram_leakage_w;
  return design;
}

std::optional<DesignEstimate> maybe_estimate_design(const HardwareParams& hw) {
  if (!hw.design.technology) return std::nullopt;
  return estimate_design(hw);
}

std::optional<double> apply_derived_tdp(HardwareParams& hw) {
  if (!hw.design.tdp_derived || !hw.design.technology) return std::nullopt;
  const double tdp_w = estimate_design(hw).power.tdp_w;
  if (hw.power.cap_w == hw.power.tdp_w) hw.power.cap_w = tdp_w;
  hw.power.tdp_w = tdp_w;
  return tdp_w;
}

}  // namespace roofsim
