#pragma once
// Energy accounting: what a device spends, from integer counts of what it did. Dynamic energy is
// counted as events (FLOPs per engine and data type, bytes per memory level, DRAM commands, bytes sent) and
// multiplied by the per-event energies only when a result is asked for, so totals do not depend on the order in
// which events were counted. Static power is per domain: the compute domain's leakage follows its voltage
// (power_laws.h); the DRAM background (the standard's [energy] background per channel) does not.
//
// Which energies follow the compute domain's voltage: FLOPs and on-chip SRAM (one supply with the engines, as the
// power-aware roofline assumes, sim/roofline/roofline.cpp); DRAM and links have their own supplies.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/power/power_params.h"
#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

// DRAM commands of the detailed model (RD and WR per burst), as DRAMPower counts them (Chandrasekar et al.,
// "DRAMPower", http://www.drampower.info).
struct DramCommandCounts {
  std::uint64_t act = 0, pre = 0, rd = 0, wr = 0, ref = 0;

  DramCommandCounts& operator+=(const DramCommandCounts& other);
  DramCommandCounts& operator-=(const DramCommandCounts& other);
};

// Counts of everything that costs dynamic energy. Sized by an EnergyModel (activity()).
struct Activity {
  std::vector<Flops> flops;        // per compute slot (EnergyModel::flop_slot: engine x data type)
  std::vector<std::uint64_t> ops;  // lane operations per slot (EnergyModel::op_slot: engine x operation class)
  Flops lane_flops = 0;            // FLOPs done as lane operations: counted, their energy is the operations'
  std::vector<Bytes> level_bytes;  // per level in EnergyModel::level_names() order ("dram" last where present)
  DramCommandCounts dram_commands;
  Bytes network_bytes = 0;
  // Clock cycles of compute units holding work, at the compute clock: what their clock tree, pipeline registers and
  // instruction issue spend per cycle whatever the engines do (PowerParams::active_unit_energy_per_cycle_j).
  std::uint64_t active_unit_cycles = 0;

  Activity& operator+=(const Activity& other);
  Activity& operator-=(const Activity& other);  // counts are cumulative: a later snapshot minus an earlier one
  [[nodiscard]] bool empty() const;
};

// Where energy went. `level_j` has one entry per level (SRAM levels and "dram") in level_names() order.
struct EnergyBreakdown {
  Joules compute_j = 0;         // FLOPs and lane operations on the engines, and the cycles of units holding work
  std::vector<Joules> level_j;  // bytes at each level (for "dram": per byte or per command)
  Joules network_j = 0;         // bytes sent over links
  Joules compute_static_j = 0;  // compute-domain leakage
  Joules memory_static_j = 0;   // DRAM background

  EnergyBreakdown& operator+=(const EnergyBreakdown& other);
  [[nodiscard]] Joules sram_j(std::size_t dram_index) const;  // every level but the one at `dram_index`
  [[nodiscard]] Joules dynamic_j() const;
  [[nodiscard]] Joules static_j() const { return compute_static_j + memory_static_j; }
  [[nodiscard]] Joules total_j() const { return dynamic_j() + static_j(); }
};

// How DRAM energy is counted: per byte (the simple channel model, `dram.energy_per_byte`) or per command (a model
// that counts ACT/PRE/RD/WR/REF). Either way the standard's background power per channel is static power.
enum class DramEnergyBasis { per_byte, per_command };

class EnergyModel {
 public:
  EnergyModel(const PowerDomainParams& params, DramEnergyBasis basis);

  // Index of (engine, data type) in Activity::flops; engines in PowerDomainParams::engines order.
  [[nodiscard]] std::size_t flop_slot(std::size_t engine, DataType dtype) const;
  [[nodiscard]] std::size_t flop_slots() const { return flop_energy_j_.size(); }
  // Index of (engine, operation class) in Activity::ops; the class by its index in the engines' energy_per_op_j.
  [[nodiscard]] std::size_t op_slot(std::size_t engine, std::size_t op_class) const;
  [[nodiscard]] const std::vector<std::string>& level_names() const { return level_names_; }
  // Index of "dram" in level_names(); level_names().size() when the device has none.
  [[nodiscard]] std::size_t dram_index() const { return dram_index_; }
  [[nodiscard]] Activity activity() const;  // all zero, sized for this device
  [[nodiscard]] DramEnergyBasis dram_basis() const { return dram_basis_; }

  // Dynamic energy of `activity` performed with the compute domain at `voltage_v` (static fields left 0).
  [[nodiscard]] EnergyBreakdown dynamic_energy(const Activity& activity, Volts voltage_v) const;
  // Static power of the compute domain at a voltage (power_laws.h) and of the DRAM (its background power).
  [[nodiscard]] Watts compute_static_w(Volts voltage_v) const;
  [[nodiscard]] Watts memory_static_w() const { return memory_static_w_; }
  [[nodiscard]] Volts nominal_voltage_v() const { return nominal_voltage_v_; }

  // Per-event energies at the nominal voltage, for closed forms in tests and reports.
  [[nodiscard]] Joules flop_energy_j(std::size_t slot) const { return flop_energy_j_[slot]; }
  [[nodiscard]] Joules op_energy_j(std::size_t slot) const { return op_energy_j_[slot]; }
  [[nodiscard]] Joules level_energy_per_byte_j(std::size_t level) const { return level_energy_j_[level]; }
  [[nodiscard]] bool level_on_chip(std::size_t level) const { return level != dram_index_; }
  [[nodiscard]] Joules active_unit_cycle_energy_j() const { return active_unit_cycle_j_; }

 private:
  std::vector<Joules> flop_energy_j_;  // per slot, at nominal voltage
  std::vector<Joules> op_energy_j_;    // per operation slot, at nominal voltage
  std::size_t op_classes_ = 0;         // operation classes per engine
  std::vector<std::string> level_names_;
  std::vector<Joules> level_energy_j_;  // per byte; DRAM: per byte of the simple model
  std::size_t dram_index_ = 0;
  DramEnergyBasis dram_basis_ = DramEnergyBasis::per_byte;
  DramEnergyParams dram_commands_j_;
  Joules network_energy_per_byte_j_ = 0;
  Joules active_unit_cycle_j_ = 0;
  Watts static_nominal_w_ = 0;
  Watts memory_static_w_ = 0;
  Volts nominal_voltage_v_ = 1;
};

}  // namespace roofsim
