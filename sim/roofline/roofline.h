#pragma once
// The six analytic roofline variants of DESIGN.md section 5, one function each, per op, as a time and as a rate. Each
// variant is a lower bound on the op's time: the longest of the times its constraints need (FLOPs at the peak, bytes at
// each bandwidth, energy at the power left under a cap, launch latency); its rate is the op's FLOPs over that time.
// The time is what decides: an op without FLOPs (a copy, an all-gather) has every rate 0, but its bytes still take
// time at the memory or on the network, and that time says what binds. Each variant is the classic bound refined by
// one more constraint, so none is faster than classic; one that does not apply (no cap, no network) equals classic;
// no rate is infinite or NaN, and a time is infinite only where no rate is possible at all (a cap below the static
// power at every DVFS state).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/core/data_type.h"
#include "sim/core/units.h"
#include "sim/roofline/dram_bandwidth.h"

namespace roofsim {

struct Op;

// The name of the off-chip level in inputs and reports.
inline constexpr std::string_view kDramLevel = "dram";

// Bytes an op moves at one memory level ("l1", "l2", ..., "dram").
struct LevelBytes {
  std::string level;
  Bytes bytes = 0;
};

// What a roofline needs of an op. `roofsim roofline` fills it with compulsory counts; `roofsim run` with the
// simulated bytes per level and the measured row-hit rate.
struct RooflineInput {
  Flops flops = 0;                // useful FLOPs
  std::vector<LevelBytes> bytes;  // per level, from the units outward, including "dram" when the device has DRAM
  double row_hit_rate = 1.0;      // DRAM row-buffer hit rate h in [0, 1]
  Bytes network_bytes = 0;        // bytes the device sends
  DataType dtype = DataType::fp16;
  std::string engine;  // "" = the fastest engine for the data type
  // The op's useful work per kind of engine work (counting.h engine_work) and the data type of its vector work;
  // empty: the engine's peak alone bounds compute.
  PhaseWork work;
  DataType vector_dtype = DataType::fp32;

  [[nodiscard]] Bytes bytes_at(std::string_view level) const;  // 0 when the level is not listed
};

// One memory level as the rooflines see it.
struct RoofLevel {
  std::string name;
  BytesPerSecond bandwidth_bytes_per_s = 0;  // whole device
  Joules energy_per_byte_j = 0;              // at nominal voltage
  bool on_chip = true;                       // on-chip energies follow the compute domain's voltage; DRAM's do not
};

// A DVFS state with everything the power-aware roofline needs at it.
struct RoofPowerState {
  Hertz clock_hz = 0;
  Volts voltage_v = 0;
};

// Device figures the rooflines use, derived once from the hardware parameters.
struct DeviceRoof {
  std::string name;
  ComputeParams compute;
  std::vector<RoofLevel> levels;  // on-chip levels from the units outward, then "dram" when present
  std::string main_memory;        // "dram", or the outermost on-chip level of an SRAM-only design
  BytesPerSecond main_bandwidth_bytes_per_s = 0;
  std::optional<DramRowBandwidth> dram_rows;  // absent without DRAM
  Bytes bytes_in_flight = 0;                  // units x outstanding_requests x request_bytes
  Seconds memory_latency_s = 0;               // unloaded latency of the main memory
  Seconds launch_latency_s = 0;
  Watts power_cap_w = 0;            // 0: no cap
  Watts static_power_w = 0;         // compute-domain leakage at nominal voltage
  Watts memory_static_power_w = 0;  // DRAM background: the standard's per channel x channels; not voltage-scaled
  Volts nominal_voltage_v = 1;
  Hertz nominal_clock_hz = 0;
  Joules active_unit_energy_per_cycle_j = 0;  // a unit holding work, per cycle at nominal voltage (clock power)
  std::vector<RoofPowerState> dvfs;           // ascending clock
  BytesPerSecond network_bandwidth_bytes_per_s = 0;
  Joules network_energy_per_byte_j = 0;

  [[nodiscard]] const RoofLevel* level(std::string_view level_name) const;
  // bytes_in_flight / memory latency (Little's law); 0 when the latency is unknown (the line does not apply).
  [[nodiscard]] BytesPerSecond latency_bandwidth_bytes_per_s() const;
};

[[nodiscard]] DeviceRoof make_device_roof(const HardwareParams& hardware);

// The device's static power with the compute domain at `voltage_v`: leakage scaled by V / V_nominal
// (sim/core/power_laws.h) plus the DRAM background, which has its own supply.
[[nodiscard]] Watts device_static_power_w(const DeviceRoof& device, Volts voltage_v);
// The clock power of every unit holding work at a DVFS state: units x energy per cycle x f x (V / V_nominal)^2, as the
// simulated power domain books it.
[[nodiscard]] Watts active_units_power_w(const DeviceRoof& device, const RoofPowerState& state);

// The compulsory input of an op: its FLOPs and its compulsory bytes (each input read once, each output written once)
// at every level of the device, its analytic row-hit rate and its network bytes.
[[nodiscard]] RooflineInput compulsory_input(const Op& op, const DeviceRoof& device);

// A ceiling and the resource that sets it: compute:<dtype>, memory:<level>, dram-rows, latency, launch, power, network.
struct Ceiling {
  FlopsPerSecond flops_per_s = 0;  // the op's useful FLOPs / time_s (0 for an op without FLOPs)
  Seconds time_s = 0;              // the least time the op takes under the variant's constraints
  std::string bound_by;
};

enum class Variant { classic, hierarchical, dram, latency, power, comm };
// In the tie order of DESIGN.md section 5.
inline constexpr std::array<Variant, 6> kAllVariants = {Variant::classic, Variant::hierarchical, Variant::dram,
                                                        Variant::latency, Variant::power,        Variant::comm};
[[nodiscard]] std::string_view to_string(Variant variant);

// Peak of the op's data type on its engine at a clock (engine clocks scale by clock / nominal clock); 0 when the
// device lacks the type or engine.
[[nodiscard]] FlopsPerSecond peak_flops_per_s(const DeviceRoof& device, DataType dtype, std::string_view engine,
                                              Hertz clock_hz);

// classic (Williams, Waterman and Patterson, "Roofline", CACM 52(4), 2009): min(P, OI_dram x B_dram).
[[nodiscard]] Ceiling classic_ceiling(const DeviceRoof& device, const RooflineInput& input);
// hierarchical (Ilic, Pratas and Sousa, "Cache-aware Roofline model", IEEE CAL 2014; Yang et al., "Hierarchical
// Roofline analysis", NERSC 2020): min(P, min over levels l of OI_l x B_l).
[[nodiscard]] Ceiling hierarchical_ceiling(const DeviceRoof& device, const RooflineInput& input);
// DRAM-aware: min(P, OI_dram x B(h)), B(h) = min(B_hit, B_miss / (1 - h)) (dram_bandwidth.h).
[[nodiscard]] Ceiling dram_ceiling(const DeviceRoof& device, const RooflineInput& input);
// latency-aware (Little's law): min(P, OI_dram x min(B_dram, bytes_in_flight / latency), FLOPs / launch latency).
[[nodiscard]] Ceiling latency_ceiling(const DeviceRoof& device, const RooflineInput& input);
// power-aware (Choi, Bedard, Fowler and Vuduc, "A roofline model of energy", IPDPS 2013; Choi et al., "Algorithmic
// time, energy, and power on candidate HPC compute building blocks", IPDPS 2014): min(classic, best over DVFS states
// s of min(P_s, OI_dram x B_dram, (Pcap - P_static(V_s)) / (e_flop(V_s) + sum over l of e_l(V_s) / OI_l))).
[[nodiscard]] Ceiling power_ceiling(const DeviceRoof& device, const RooflineInput& input);
// communication-aware (Checconi, Petrini et al., network-aware roofline): min(classic, OI_net x B_net),
// OI_net = FLOPs / bytes the device sends.
[[nodiscard]] Ceiling comm_ceiling(const DeviceRoof& device, const RooflineInput& input);

struct Ceilings {
  Ceiling classic, hierarchical, dram, latency, power, comm;

  [[nodiscard]] const Ceiling& operator[](Variant variant) const;
};

struct RooflineResult {
  Ceilings ceilings;
  Variant binding = Variant::classic;  // the slowest ceiling (longest time); ties go to the first in kAllVariants
  std::string bound_by;                // the binding ceiling's resource
};

[[nodiscard]] RooflineResult evaluate_roofline(const DeviceRoof& device, const RooflineInput& input);

// The ceiling with the longest time (for an op with FLOPs, the lowest rate) with the tie order; times within a relative
// 1e-9 count as equal, so rounding in two formulas that agree does not pick the later one.
[[nodiscard]] Variant binding_variant(const Ceilings& ceilings);

// Operational intensity in FLOP/B; +inf when no bytes move (callers report it as null).
[[nodiscard]] FlopsPerByte operational_intensity(Flops flops, Bytes bytes);

}  // namespace roofsim
