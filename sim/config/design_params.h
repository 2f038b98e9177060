#pragma once
// The inputs of the design model (sim/design): the process technology a device is built in, what its die holds beyond
// what the performance model uses (units and SRAM disabled for yield, register files, PHYs, I/O), and the prices of
// its parts. Read from the [technology], [area] and [cost] sections of a device file; a device without a [technology]
// section has no design model. Values in the units their names carry.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sim/core/units.h"

namespace roofsim {

struct TechnologyParams {
  std::string node;                         // "TSMC 4N"
  double logic_density_mtr_per_mm2 = 0;     // foundry logic density, million transistors per mm^2
  double sram_density_mbit_per_mm2 = 0;     // high-density SRAM macro density, Mibit per mm^2
  double sram_high_current_area_ratio = 0;  // high-current bitcell area over the high-density one
  double sram_bank_periphery_mm2 = 0;       // decoders, sense amplifiers and I/O of one bank
  double logic_calibration = 0;             // the one documented calibration factor of the logic area
  double noc_mm2_per_port = 0;              // on-chip network per attached unit or shared-SRAM bank
  double hbm_interface_mm2 = 0;             // PHY and controller of one HBM stack (or DRAM channel group)
  double serdes_mm2_per_gbyte_per_s = 0;    // link PHY area per GB/s of one direction
  double wafer_diameter_mm = 0;
  double wafer_cost_usd = 0;
  double defect_density_per_cm2 = 0;
  double defect_clustering = 0;  // negative-binomial alpha
  double logic_leakage_w_per_mm2 = 0;
  double sram_leakage_w_per_mib = 0;
};

struct LevelAreaParams {
  Bytes capacity_disabled_bytes = 0;  // on the die but disabled for yield (per unit for a unit-scope level)
  std::string macro = "hd";           // hd: high-density bitcells; hc: high-current (faster, larger) bitcells
};

struct AreaParams {
  std::uint64_t units_disabled = 0;            // units on the die disabled for yield
  std::uint64_t dram_interfaces_disabled = 0;  // DRAM stack interfaces on the die left unused
  std::uint64_t dies = 1;                      // dies the silicon is split over (each yields on its own)
  Bytes register_file_per_unit_bytes = 0;
  double other_mm2 = 0;                           // host interface, media engines, management: cited or estimated
  double published_die_area_mm2 = 0;              // checked by a test against the model, not used by it
  std::map<std::string, LevelAreaParams> levels;  // [area.memory.<name>]
};

struct CostParams {
  double dram_usd_per_gbyte = 0;
  double hbm_stack_footprint_mm2 = 0;
  double interposer_usd_per_mm2 = 0;
  double interposer_area_ratio = 0;  // interposer area over the area of the dies and stacks on it
  double assembly_test_usd = 0;
  double service_life_years = 5;  // the device cost is amortised over it for a run's cost per token
};

struct DesignParams {
  std::optional<TechnologyParams> technology;  // absent: no design model
  AreaParams area;
  CostParams cost;
  bool tdp_derived = false;  // power.tdp_source = "derived": the governor's cap is the design model's TDP
};

}  // namespace roofsim
