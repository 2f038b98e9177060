#include "sim/roofline/roofline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "sim/core/power_laws.h"
#include "sim/graph/counting.h"
#include "sim/graph/hardware_check.h"
#include "sim/graph/op.h"

namespace roofsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Two ceilings within this relative distance are the same ceiling computed by two formulas (DESIGN.md tie order).
constexpr double kTieTolerance = 1e-9;

// FLOPs / bytes x bandwidth, written so that no bytes means "no bound" (+inf) and never 0 x inf = NaN.
FlopsPerSecond bandwidth_bound(Flops flops, Bytes bytes, BytesPerSecond bandwidth) {
  if (bytes == 0) return kInf;
  return static_cast<double>(flops) / static_cast<double>(bytes) * bandwidth;
}

bool strictly_above(double value, double reference) {
  return value > reference * (1.0 + kTieTolerance);
}

std::string compute_bound(DataType dtype) {
  return "compute:" + std::string(to_string(dtype));
}

// The time `work` takes at `rate`: no work takes no time; work at no rate never finishes (+inf, reported as null).
Seconds time_at(double work, double rate) {
  if (work <= 0) return 0;
  return rate > 0 ? work / rate : kInf;
}

// The op's bytes at one resource as a ceiling: the transfer time, and the rate its FLOPs reach in that time.
Ceiling memory_limit(Flops flops, Bytes bytes, BytesPerSecond bandwidth, std::string bound_by) {
  return {bandwidth_bound(flops, bytes, bandwidth), time_at(static_cast<double>(bytes), bandwidth),
          std::move(bound_by)};
}

// The slower of two limits that act together (the op needs both times); a tie keeps the first.
Ceiling slower(Ceiling first, Ceiling second) {
  return second.time_s > first.time_s ? std::move(second) : std::move(first);
}

// The compute ceiling at `clock_hz`: the peak of the op's engine for its data type, unless the op's work on another
// engine takes longer than its FLOPs on its own (a softmax on the vector lanes or special-function units, an
// element-wise add that issues one operation per FLOP where the peak counts an FMA as two): then the rate that work
// allows, bound by "compute:<engine>". The work is the op's useful work per engine (counting.h engine_work), each
// engine's time its operations over its per-unit rate times the units; engines run side by side, so the slowest binds.
Ceiling compute_ceiling(const DeviceRoof& device, const RooflineInput& input, Hertz clock_hz) {
  const FlopsPerSecond peak = peak_flops_per_s(device, input.dtype, input.engine, clock_hz);
  Ceiling ceiling{peak, time_at(static_cast<double>(input.flops), peak), compute_bound(input.dtype)};
  if (input.work.empty() || input.flops == 0) return ceiling;
  const auto* own = device.compute.engine_for(input.dtype, input.engine);
  if (own == nullptr) return ceiling;
  const auto routes = device.compute.routes(*own, input.dtype, input.vector_dtype);
  const auto seconds = engine_seconds(input.work, routes, device.compute.engines.size());
  const std::size_t binding = binding_engine(seconds, routes[0].index);
  if (seconds[binding] <= 0) return ceiling;
  const double scale = device.nominal_clock_hz > 0 ? clock_hz / device.nominal_clock_hz : 1.0;
  const Seconds work_s = seconds[binding] / (static_cast<double>(device.compute.units) * scale);
  if (peak <= 0 || strictly_above(work_s, ceiling.time_s)) {
    ceiling = {static_cast<double>(input.flops) / work_s, work_s, "compute:" + device.compute.engines[binding].name};
  }
  return ceiling;
}

// A variant whose extra constraint does not make the op slower than classic is the classic ceiling.
Ceiling refine(const Ceiling& classic, Ceiling candidate) {
  return strictly_above(candidate.time_s, classic.time_s) ? std::move(candidate) : classic;
}

// Energy of moving the op's bytes at the compute domain's voltage: sum over levels of e_l x bytes_l, plus the
// network's. On-chip levels share the compute domain's supply (dynamic energy ~ V^2, as for the FLOPs); DRAM and links
// have their own supplies and keep their energies when the compute clock changes.
Joules data_energy_j(const DeviceRoof& device, const RooflineInput& input, Volts voltage_v) {
  const double on_chip_scale = dynamic_energy_scale(voltage_v, device.nominal_voltage_v);
  Joules energy = 0;
  for (const auto& level : device.levels) {
    const double scale = level.on_chip ? on_chip_scale : 1.0;
    energy += level.energy_per_byte_j * scale * static_cast<double>(input.bytes_at(level.name));
  }
  energy += device.network_energy_per_byte_j * static_cast<double>(input.network_bytes);
  return energy;
}

// Energy per FLOP of the op's work on the engines at the nominal voltage: its FLOPs on its own engine, and its lane
// operations (vector and special-function work) on the engines that run them, at their classes' energies. An op
// without matrix work does its FLOPs as those operations.
Joules flop_energy_j(const DeviceRoof& device, const RooflineInput& input) {
  const auto* engine = device.compute.engine_for(input.dtype, input.engine);
  if (engine == nullptr) return 0;
  const auto found = engine->energy_per_flop_j.find(input.dtype);
  Joules energy = found == engine->energy_per_flop_j.end() ? 0.0 : found->second;
  if (input.work.empty() || input.flops == 0) return energy;
  // Without matrix work the FLOPs are the lane operations counted below (as the simulation books them).
  if (input.work.flops == 0) energy = 0;
  const auto routes = device.compute.routes(*engine, input.dtype, input.vector_dtype);
  const auto vector = vector_classes(input.vector_dtype);
  const std::array<std::pair<std::uint64_t, EngineOpClass>, 5> ops = {
      {{input.work.vector_fma, vector[0]},
       {input.work.vector_alu, vector[1]},
       {input.work.exp2, EngineOpClass::exp2},
       {input.work.reciprocal, EngineOpClass::reciprocal},
       {input.work.rsqrt, EngineOpClass::rsqrt}}};
  for (std::size_t kind = 0; kind < ops.size(); ++kind) {
    const auto& runner = device.compute.engines[routes[kind + 1].index];
    energy +=
        static_cast<double>(ops[kind].first) * runner.op_energy_j(ops[kind].second) / static_cast<double>(input.flops);
  }
  return energy;
}

}  // namespace

Bytes RooflineInput::bytes_at(std::string_view level) const {
  for (const auto& entry : bytes) {
    if (entry.level == level) return entry.bytes;
  }
  return 0;
}

const RoofLevel* DeviceRoof::level(std::string_view level_name) const {
  for (const auto& candidate : levels) {
    if (candidate.name == level_name) return &candidate;
  }
  return nullptr;
}

BytesPerSecond DeviceRoof::latency_bandwidth_bytes_per_s() const {
  if (memory_latency_s <= 0 || bytes_in_flight == 0) return 0;
  return static_cast<double>(bytes_in_flight) / memory_latency_s;
}

DeviceRoof make_device_roof(const HardwareParams& hardware) {
  DeviceRoof device;
  device.name = hardware.name;
  device.compute = hardware.compute;
  for (const auto& level : hardware.levels) {
    device.levels.push_back({level.name, level.bandwidth_bytes_per_s, level.energy_per_byte_j, true});
  }
  if (hardware.dram) {
    const auto& dram = *hardware.dram;
    const auto& standard = dram.standard;
    Joules per_byte = dram.energy_per_byte_j;
    if (per_byte <= 0 && standard.burst_bytes() > 0 && standard.row_bytes > 0) {
      // A streaming read from the command energies: one RD per burst, one ACT/PRE pair per row.
      per_byte = standard.energy.rd_j / static_cast<double>(standard.burst_bytes()) +
                 (standard.energy.act_j + standard.energy.pre_j) / static_cast<double>(standard.row_bytes);
    }
    device.levels.push_back({std::string(kDramLevel), dram.peak_bandwidth_bytes_per_s(), per_byte, false});
    device.dram_rows = dram_row_bandwidth(dram);
    device.memory_latency_s = dram.latency_s;
    // The DRAM's background power (JEDEC IDD2N/IDD3N x VDD per channel, the standard's [energy] background) is
    // drawn however busy the memory is: static power beside the compute domain's leakage (Choi et al. 2013's pi_0
    // is the whole system's constant power).
    device.memory_static_power_w = standard.energy.background_w * static_cast<double>(dram.channels());
  } else if (!hardware.levels.empty()) {
    device.memory_latency_s = hardware.levels.back().latency_s;
  }
  if (!device.levels.empty()) {
    device.main_memory = device.levels.back().name;
    device.main_bandwidth_bytes_per_s = device.levels.back().bandwidth_bytes_per_s;
  }
  device.bytes_in_flight =
      hardware.compute.units * hardware.compute.outstanding_requests * hardware.compute.request_bytes;
  device.launch_latency_s = hardware.launch_latency_s;
  device.power_cap_w = hardware.power.cap_w;
  device.static_power_w = hardware.power.static_w;
  device.nominal_voltage_v = hardware.power.nominal_voltage_v > 0 ? hardware.power.nominal_voltage_v : 1.0;
  device.nominal_clock_hz = hardware.power.nominal_clock_hz;
  device.active_unit_energy_per_cycle_j = hardware.power.active_unit_energy_per_cycle_j;
  for (const auto& state : hardware.power.dvfs) device.dvfs.push_back({state.clock_hz, state.voltage_v});
  if (device.dvfs.empty()) device.dvfs.push_back({device.nominal_clock_hz, device.nominal_voltage_v});
  device.network_bandwidth_bytes_per_s = hardware.interconnect.bandwidth_bytes_per_s();
  device.network_energy_per_byte_j = hardware.interconnect.energy_per_byte_j;
  return device;
}

Watts device_static_power_w(const DeviceRoof& device, Volts voltage_v) {
  return static_power_at_w(device.static_power_w, voltage_v, device.nominal_voltage_v) + device.memory_static_power_w;
}

Watts active_units_power_w(const DeviceRoof& device, const RoofPowerState& state) {
  return static_cast<double>(device.compute.units) * device.active_unit_energy_per_cycle_j * state.clock_hz *
         dynamic_energy_scale(state.voltage_v, device.nominal_voltage_v);
}

RooflineInput compulsory_input(const Op& op, const DeviceRoof& device) {
  RooflineInput input;
  input.flops = op.useful_flops;
  for (const auto& level : device.levels) input.bytes.push_back({level.name, op.compulsory_bytes()});
  input.row_hit_rate = op.analytic_row_hit_rate;
  input.network_bytes = op.network_bytes;
  input.dtype = op.dtype;
  input.work = engine_work(op);
  input.vector_dtype = vector_data_type(op);
  // The engine the simulation runs the op on, so that both answers use the same peak.
  const auto* engine = op_engine(op, device.compute);
  input.engine = engine != nullptr ? engine->name : op.engine;
  return input;
}

std::string_view to_string(Variant variant) {
  switch (variant) {
    case Variant::classic: return "classic";
    case Variant::hierarchical: return "hierarchical";
    case Variant::dram: return "dram";
    case Variant::latency: return "latency";
    case Variant::power: return "power";
    case Variant::comm: return "comm";
  }
  return "classic";
}

FlopsPerSecond peak_flops_per_s(const DeviceRoof& device, DataType dtype, std::string_view engine, Hertz clock_hz) {
  const auto* chosen = device.compute.engine_for(dtype, engine);
  if (chosen == nullptr) return 0;
  const double scale = device.nominal_clock_hz > 0 ? clock_hz / device.nominal_clock_hz : 1.0;
  return chosen->peak_flops_per_s(dtype, device.compute.units) * scale;
}

Ceiling classic_ceiling(const DeviceRoof& device, const RooflineInput& input) {
  return slower(compute_ceiling(device, input, device.nominal_clock_hz),
                memory_limit(input.flops, input.bytes_at(device.main_memory), device.main_bandwidth_bytes_per_s,
                             "memory:" + device.main_memory));
}

Ceiling hierarchical_ceiling(const DeviceRoof& device, const RooflineInput& input) {
  Ceiling best = compute_ceiling(device, input, device.nominal_clock_hz);
  for (const auto& level : device.levels) {
    best = slower(std::move(best), memory_limit(input.flops, input.bytes_at(level.name), level.bandwidth_bytes_per_s,
                                                "memory:" + level.name));
  }
  return best;
}

Ceiling dram_ceiling(const DeviceRoof& device, const RooflineInput& input) {
  const Ceiling classic = classic_ceiling(device, input);
  if (!device.dram_rows) return classic;
  const BytesPerSecond blended = blended_dram_bandwidth(*device.dram_rows, input.row_hit_rate);
  return refine(classic, memory_limit(input.flops, input.bytes_at(kDramLevel), blended, "dram-rows"));
}

Ceiling latency_ceiling(const DeviceRoof& device, const RooflineInput& input) {
  const Ceiling classic = classic_ceiling(device, input);
  Ceiling result = classic;
  const BytesPerSecond little = device.latency_bandwidth_bytes_per_s();
  if (little > 0) {
    const BytesPerSecond effective = std::min(device.main_bandwidth_bytes_per_s, little);
    result = refine(classic, memory_limit(input.flops, input.bytes_at(device.main_memory), effective, "latency"));
  }
  if (device.launch_latency_s > 0 && strictly_above(device.launch_latency_s, result.time_s)) {
    // No op finishes sooner than its launch latency: time >= launch latency, so FLOP/s <= FLOPs / launch latency.
    result = {static_cast<double>(input.flops) / device.launch_latency_s, device.launch_latency_s, "launch"};
  }
  return result;
}

Ceiling power_ceiling(const DeviceRoof& device, const RooflineInput& input) {
  const Ceiling classic = classic_ceiling(device, input);
  if (device.power_cap_w <= 0) return classic;
  const Ceiling memory = memory_limit(input.flops, input.bytes_at(device.main_memory),
                                      device.main_bandwidth_bytes_per_s, "memory:" + device.main_memory);
  const Joules flop_nominal = flop_energy_j(device, input);
  Seconds best_s = kInf;
  for (const auto& state : device.dvfs) {
    // Choi et al. 2013, eq. (5)-(7): with static power pi0 and per-operation energies, a power cap bounds the time of
    // the op's work at (W e_flop + Q e_mem) / (Pcap - pi0), beside W / P and Q / B; leakage scales ~ V, dynamic
    // energy ~ V^2 (Rabaey, Digital Integrated Circuits, 2003, ch. 5). In time the bound holds for an op without
    // FLOPs too: its bytes' energy at the power left over.
    // The scaling laws are those of the simulated power domain (sim/core/power_laws.h).
    // The units' clock power is drawn all the time the op runs on every unit (the ceiling's premise), like static
    // power: it comes off the cap before the work's energy.
    const Watts available =
        device.power_cap_w - device_static_power_w(device, state.voltage_v) - active_units_power_w(device, state);
    const Joules energy = flop_nominal * dynamic_energy_scale(state.voltage_v, device.nominal_voltage_v) *
                              static_cast<double>(input.flops) +
                          data_energy_j(device, input, state.voltage_v);
    const Seconds energy_s = available > 0 ? time_at(energy, available) : kInf;
    const Seconds peak_s = compute_ceiling(device, input, state.clock_hz).time_s;
    best_s = std::min(best_s, std::max({peak_s, memory.time_s, energy_s}));
  }
  // A cap below the static power at every state leaves no rate at all: 0 FLOP/s and an infinite time.
  const FlopsPerSecond rate = best_s > 0 ? static_cast<double>(input.flops) / best_s : classic.flops_per_s;
  return refine(classic, {rate, best_s, "power"});
}

Ceiling comm_ceiling(const DeviceRoof& device, const RooflineInput& input) {
  const Ceiling classic = classic_ceiling(device, input);
  if (input.network_bytes == 0 || device.network_bandwidth_bytes_per_s <= 0) return classic;
  return refine(classic,
                memory_limit(input.flops, input.network_bytes, device.network_bandwidth_bytes_per_s, "network"));
}

const Ceiling& Ceilings::operator[](Variant variant) const {
  switch (variant) {
    case Variant::classic: return classic;
    case Variant::hierarchical: return hierarchical;
    case Variant::dram: return dram;
    case Variant::latency: return latency;
    case Variant::power: return power;
    case Variant::comm: return comm;
  }
  return classic;
}

Variant binding_variant(const Ceilings& ceilings) {
  Variant slowest = kAllVariants.front();
  for (const auto variant : kAllVariants) {
    if (strictly_above(ceilings[variant].time_s, ceilings[slowest].time_s)) slowest = variant;
  }
  return slowest;
}

RooflineResult evaluate_roofline(const DeviceRoof& device, const RooflineInput& input) {
  RooflineResult result;
  result.ceilings.classic = classic_ceiling(device, input);
  result.ceilings.hierarchical = hierarchical_ceiling(device, input);
  result.ceilings.dram = dram_ceiling(device, input);
  result.ceilings.latency = latency_ceiling(device, input);
  result.ceilings.power = power_ceiling(device, input);
  result.ceilings.comm = comm_ceiling(device, input);
  result.binding = binding_variant(result.ceilings);
  result.bound_by = result.ceilings[result.binding].bound_by;
  return result;
}

FlopsPerByte operational_intensity(Flops flops, Bytes bytes) {
  if (bytes == 0) return kInf;
  return static_cast<double>(flops) / static_cast<double>(bytes);
}

}  // namespace roofsim
