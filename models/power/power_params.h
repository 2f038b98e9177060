#pragma once
// The parameters of a device's power model. PowerParams is the device file's [power] section as the configuration
// produces it (base units); PowerDomainParams adds what the energy accounting needs to know of the other models (the
// energy of a FLOP per engine and data type, of a byte at each memory level, of the DRAM's commands and of a byte on
// the links), which sim/config gathers from the device's parameters.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/data_type.h"
#include "sim/core/units.h"

namespace roofsim {

struct DvfsState {
  Hertz clock_hz = 0;  // compute-domain clock; engine clocks scale by clock / nominal clock
  Volts voltage_v = 0;
};

struct PowerParams {
  Watts tdp_w = 0;
  Watts cap_w = 0;     // the governor keeps average power below this
  Watts static_w = 0;  // leakage at nominal voltage; scales with V
  Volts nominal_voltage_v = 0;
  // Dynamic energy per clock cycle of one compute unit holding work, at the nominal voltage: the clock tree,
  // pipeline registers and instruction issue and scheduling that switch every cycle an SM is active, whatever its
  // engines do (AccelWattch's per-active-SM power, Kandiah et al., MICRO 2021). Power = active units x clock x this x
  // (V / V_nominal)^2, so it follows DVFS.
  Joules active_unit_energy_per_cycle_j = 0;
  Hertz nominal_clock_hz = 0;    // the clock the engine figures are given at (the highest DVFS state)
  std::vector<DvfsState> dvfs;   // ascending clock; at least the nominal state
  Seconds window_s = 0;          // averaging window of the governor
  Seconds reaction_delay_s = 0;  // delay from a decision to the clock change
  Seconds up_hold_s = 0;         // time at a state whose mean power must predict a fit before a step up
};

// An engine of the compute units: its nominal clock (the compute domain's, when the power section names none), its
// dynamic energy per FLOP and per lane operation of each class at the nominal voltage. The classes are the compute
// model's (models/compute/compute_params.h, kAllEngineOpClasses), by their index in its order.
struct EngineEnergyParams {
  Hertz clock_hz = 0;
  std::map<DataType, Joules> energy_per_flop_j;
  std::vector<Joules> energy_per_op_j;
};

// An on-chip memory level: energy per byte moved at the nominal voltage.
struct LevelEnergyParams {
  std::string name;
  Joules energy_per_byte_j = 0;
};

// The DRAM: energy per byte (the channel model) or per command (ACT, PRE, REF; RD and WR per burst, as DRAMPower
// counts them, http://www.drampower.info), and its background power per channel (pseudo-channel for HBM).
struct DramEnergyParams {
  Joules energy_per_byte_j = 0;
  Joules act_j = 0, pre_j = 0, rd_j = 0, wr_j = 0, ref_j = 0;
  Watts background_w = 0;
  std::uint32_t channels = 0;
};

struct PowerDomainParams {
  std::vector<EngineEnergyParams> engines;  // in the compute units' engine order
  std::vector<LevelEnergyParams> levels;    // from the units outward, DRAM not included
  std::optional<DramEnergyParams> dram;     // absent on SRAM-only designs
  Joules network_energy_per_byte_j = 0;     // a byte sent over the device's links
  PowerParams power;
};

}  // namespace roofsim
