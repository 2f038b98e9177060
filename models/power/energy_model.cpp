#include "models/power/energy_model.h"

#include <algorithm>
#include <stdexcept>

#include "sim/core/power_laws.h"

namespace roofsim {

namespace {

std::size_t dtype_index(DataType dtype) {
  return static_cast<std::size_t>(std::find(kAllDataTypes.begin(), kAllDataTypes.end(), dtype) - kAllDataTypes.begin());
}

template <typename T>
void add_into(std::vector<T>& into, const std::vector<T>& from, bool subtract) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = subtract ? into[i] - from[i] : into[i] + from[i];
}

}  // namespace

DramCommandCounts& DramCommandCounts::operator+=(const DramCommandCounts& other) {
  act += other.act, pre += other.pre, rd += other.rd, wr += other.wr, ref += other.ref;
  return *this;
}

DramCommandCounts& DramCommandCounts::operator-=(const DramCommandCounts& other) {
  act -= other.act, pre -= other.pre, rd -= other.rd, wr -= other.wr, ref -= other.ref;
  return *this;
}

Activity& Activity::operator+=(const Activity& other) {
  add_into(flops, other.flops, false);
  add_into(ops, other.ops, false);
  lane_flops += other.lane_flops;
  add_into(level_bytes, other.level_bytes, false);
  dram_commands += other.dram_commands;
  network_bytes += other.network_bytes;
  active_unit_cycles += other.active_unit_cycles;
  return *this;
}

Activity& Activity::operator-=(const Activity& other) {
  add_into(flops, other.flops, true);
  add_into(ops, other.ops, true);
  lane_flops -= other.lane_flops;
  add_into(level_bytes, other.level_bytes, true);
  dram_commands -= other.dram_commands;
  network_bytes -= other.network_bytes;
  active_unit_cycles -= other.active_unit_cycles;
  return *this;
}

bool Activity::empty() const {
  const auto zero = [](std::uint64_t value) { return value == 0; };
  const auto& c = dram_commands;
  return std::all_of(flops.begin(), flops.end(), zero) && std::all_of(ops.begin(), ops.end(), zero) &&
         std::all_of(level_bytes.begin(), level_bytes.end(), zero) && lane_flops == 0 && c.act == 0 && c.pre == 0 &&
         c.rd == 0 && c.wr == 0 && c.ref == 0 && network_bytes == 0 && active_unit_cycles == 0;
}

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& other) {
  compute_j += other.compute_j;
  add_into(level_j, other.level_j, false);
  network_j += other.network_j;
  compute_static_j += other.compute_static_j;
  memory_static_j += other.memory_static_j;
  return *this;
}

Joules EnergyBreakdown::sram_j(std::size_t dram_index) const {
  Joules sum = 0;
  for (std::size_t i = 0; i < level_j.size(); ++i) {
    if (i != dram_index) sum += level_j[i];
  }
  return sum;
}

Joules EnergyBreakdown::dynamic_j() const {
  Joules sum = compute_j + network_j;
  for (const Joules level : level_j) sum += level;
  return sum;
}

EnergyModel::EnergyModel(const PowerDomainParams& params, DramEnergyBasis basis) {
  for (const auto& engine : params.engines) {
    for (const DataType dtype : kAllDataTypes) {
      const auto found = engine.energy_per_flop_j.find(dtype);
      flop_energy_j_.push_back(found == engine.energy_per_flop_j.end() ? 0.0 : found->second);
    }
    op_classes_ = std::max(op_classes_, engine.energy_per_op_j.size());
  }
  for (const auto& engine : params.engines) {
    for (std::size_t op_class = 0; op_class < op_classes_; ++op_class) {
      op_energy_j_.push_back(op_class < engine.energy_per_op_j.size() ? engine.energy_per_op_j[op_class] : 0.0);
    }
  }
  for (const auto& level : params.levels) {
    level_names_.push_back(level.name);
    level_energy_j_.push_back(level.energy_per_byte_j);
  }
  dram_index_ = level_names_.size();
  if (params.dram) {
    level_names_.push_back("dram");
    level_energy_j_.push_back(params.dram->energy_per_byte_j);
    dram_basis_ = basis;
    dram_commands_j_ = *params.dram;
    // The standard's background power per channel (pseudo-channel for HBM) is drawn whether or not the channel is
    // busy, as DRAMPower counts it; it is static power of the memory with either basis (a per-byte or per-command
    // figure is the energy of moving data on top of it), and the power-aware roofline counts it the same way
    // (sim/roofline/roofline.cpp, make_device_roof).
    memory_static_w_ = params.dram->background_w * static_cast<double>(params.dram->channels);
  }
  network_energy_per_byte_j_ = params.network_energy_per_byte_j;
  active_unit_cycle_j_ = params.power.active_unit_energy_per_cycle_j;
  static_nominal_w_ = params.power.static_w;
  nominal_voltage_v_ = params.power.nominal_voltage_v > 0 ? params.power.nominal_voltage_v : 1.0;
}

std::size_t EnergyModel::flop_slot(std::size_t engine, DataType dtype) const {
  const std::size_t slot = engine * kAllDataTypes.size() + dtype_index(dtype);
  if (slot >= flop_energy_j_.size()) throw std::out_of_range("EnergyModel::flop_slot: no such engine");
  return slot;
}

std::size_t EnergyModel::op_slot(std::size_t engine, std::size_t op_class) const {
  const std::size_t slot = engine * op_classes_ + op_class;
  if (op_class >= op_classes_ || slot >= op_energy_j_.size()) {
    throw std::out_of_range("EnergyModel::op_slot: no such engine or operation class");
  }
  return slot;
}

Activity EnergyModel::activity() const {
  Activity activity;
  activity.flops.assign(flop_energy_j_.size(), 0);
  activity.ops.assign(op_energy_j_.size(), 0);
  activity.level_bytes.assign(level_names_.size(), 0);
  return activity;
}

EnergyBreakdown EnergyModel::dynamic_energy(const Activity& activity, Volts voltage_v) const {
  const double scale = dynamic_energy_scale(voltage_v, nominal_voltage_v_);
  EnergyBreakdown energy;
  for (std::size_t slot = 0; slot < activity.flops.size() && slot < flop_energy_j_.size(); ++slot) {
    energy.compute_j += static_cast<double>(activity.flops[slot]) * flop_energy_j_[slot];
  }
  for (std::size_t slot = 0; slot < activity.ops.size() && slot < op_energy_j_.size(); ++slot) {
    energy.compute_j += static_cast<double>(activity.ops[slot]) * op_energy_j_[slot];
  }
  energy.compute_j += static_cast<double>(activity.active_unit_cycles) * active_unit_cycle_j_;
  energy.compute_j *= scale;
  energy.level_j.assign(level_names_.size(), 0.0);
  for (std::size_t level = 0; level < activity.level_bytes.size() && level < level_names_.size(); ++level) {
    const double bytes = static_cast<double>(activity.level_bytes[level]);
    if (level != dram_index_) {
      energy.level_j[level] = bytes * level_energy_j_[level] * scale;
    } else if (dram_basis_ == DramEnergyBasis::per_byte) {
      energy.level_j[level] = bytes * level_energy_j_[level];
    }
  }
  if (dram_basis_ == DramEnergyBasis::per_command && dram_index_ < level_names_.size()) {
    const auto& c = activity.dram_commands;
    const auto& e = dram_commands_j_;
    energy.level_j[dram_index_] = static_cast<double>(c.act) * e.act_j + static_cast<double>(c.pre) * e.pre_j +
                                  static_cast<double>(c.rd) * e.rd_j + static_cast<double>(c.wr) * e.wr_j +
                                  static_cast<double>(c.ref) * e.ref_j;
  }
  energy.network_j = static_cast<double>(activity.network_bytes) * network_energy_per_byte_j_;
  return energy;
}

Watts EnergyModel::compute_static_w(Volts voltage_v) const {
  return static_power_at_w(static_nominal_w_, voltage_v, nominal_voltage_v_);
}

}  // namespace roofsim
