#pragma once
// The design model: a device's die area from its parts, what the die and its package cost, and the power budget its
// parts add up to (a derived TDP). Plain C++ over the validated hardware parameters; the figures it starts from are
// the [technology], [area] and [cost] sections of the device file, each cited there.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"

namespace roofsim {

struct LevelArea {
  std::string name;
  double capacity_on_die_mib = 0;
  double area_mm2 = 0;
};

struct AreaBreakdown {
  std::uint64_t units_on_die = 0;
  double unit_mm2 = 0;  // one unit's logic (engines, control), its register file and its unit-scope SRAM
  double compute_logic_mm2 = 0;
  double register_file_mm2 = 0;
  std::vector<LevelArea> levels;
  double sram_mm2 = 0;  // the levels' total (register files not included)
  double noc_mm2 = 0;
  double dram_interface_mm2 = 0;
  double links_mm2 = 0;
  double other_mm2 = 0;
  double total_mm2 = 0;
  double sram_mib = 0;  // every on-die SRAM bit, register files included
};

struct CostBreakdown {
  double die_mm2 = 0;  // one die
  double dies_per_wafer = 0;
  double yield = 0;
  double good_dies_per_wafer = 0;
  double silicon_usd = 0;  // all dies of the device
  double dram_usd = 0;
  double interposer_usd = 0;
  double assembly_test_usd = 0;
  double total_usd = 0;
};

struct PowerBudget {
  double compute_w = 0;       // the most power-hungry engine and data type at its peak rate
  double active_units_w = 0;  // every unit holding work: clock tree, pipeline registers and issue at the nominal clock
  double sram_dynamic_w = 0;  // every level at its full bandwidth
  double dram_w = 0;          // DRAM at its peak bandwidth
  double links_w = 0;         // every link busy in both directions
  double logic_leakage_w = 0;
  double sram_leakage_w = 0;
  double tdp_w = 0;
};

struct DesignEstimate {
  std::string node;
  AreaBreakdown area;
  CostBreakdown cost;
  PowerBudget power;
};

// Gross dies of a round wafer, the standard estimate with the partial dies at the edge removed:
// pi (d/2)^2 / A - pi d / sqrt(2 A) (e.g. J. Hennessy, D. Patterson, "Computer Architecture", 6th ed., sec. 1.6).
[[nodiscard]] double dies_per_wafer(double wafer_diameter_mm, double die_area_mm2);
// Negative-binomial yield (C. H. Stapper, "Modeling of integrated circuit defect sensitivities", IBM J. Res. Dev.
// 1983): (1 + A D0 / alpha)^-alpha; alpha -> infinity is Poisson, e^(-A D0).
[[nodiscard]] double negative_binomial_yield(double die_area_mm2, double defect_density_per_cm2, double alpha);

// The datapath area of one unit's engine at the 45 nm reference node, um^2: the widest of its data types' FMA arrays
// and its special-function units.
[[nodiscard]] double engine_datapath_area_45nm_um2(const EngineParams& engine);

// Requires hw.design.technology.
[[nodiscard]] DesignEstimate estimate_design(const HardwareParams& hw);
[[nodiscard]] std::optional<DesignEstimate> maybe_estimate_design(const HardwareParams& hw);

// Where power.tdp_source = "derived": sets the TDP (and the cap, when the file gives none of its own) to the power
// budget. Returns the derived TDP, or nullopt when the file does not ask for one.
std::optional<double> apply_derived_tdp(HardwareParams& hw);

}  // namespace roofsim
