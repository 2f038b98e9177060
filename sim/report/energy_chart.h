#pragma once
// energy.svg: the energy-efficiency "arch line" of Choi, Bedard, Fowler and Vuduc ("A roofline model of energy",
// IPDPS 2013), FLOP/J against operational intensity, with each op a point. Where the time roofline has a sharp ridge,
// energy adds, so the line is an arch: at intensity I an op spends per FLOP
//     e(I) = e_flop + e_mem / I + pi_0 x max(1 / P, 1 / (I x B))
// (eq. 3-4 of the paper: operation energies plus constant power over the time the roofline allows), and its
// efficiency is 1 / e(I), rising to 1 / (e_flop + pi_0 / P) at high intensity. Here e_mem is the energy per byte
// summed over the levels a compulsory byte passes (every level, as for the power-capped roofline curve), pi_0 the
// static power at the state's voltage, P the peak at the state's clock and B the main memory's bandwidth.
#include <iosfwd>
#include <string>

#include "sim/report/svg_chart.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// The arch line at intensity `oi` for a data type on an engine, with the compute domain in DVFS state `state`
// (index into device.dvfs; energies and static power scale with its voltage, power_laws.h). FLOP/J; 0 where the
// device lacks the type.
[[nodiscard]] double arch_flops_per_j(const DeviceRoof& device, DataType dtype, const std::string& engine,
                                      FlopsPerByte oi, std::size_t state);

// An op's energy: the simulated one where the report has it (`run`), else the analytic one at the nominal state:
// FLOPs x e_flop + sum over levels of bytes_l x e_l + network bytes x e_net + pi_0 x (FLOPs / binding ceiling).
[[nodiscard]] Joules op_energy_j(const DeviceRoof& device, const OpReport& op);

// Decade ticks on both axes, the arch line of the ops' main data types (at most three) at the nominal state and,
// dashed, at the slowest DVFS state, each op a point at (OI at the main memory, useful FLOPs / energy) coloured as
// in roofline.svg and labelled without overlaps, a legend and notes. Class names (plot-area, arch, op, op-label,
// tick-x, tick-y) let tests parse it; each arch path and op point carries its data in data-* attributes.
// Returns the label placer's work (bounded, as for roofline.svg).
ChartWork write_energy_svg(const Report& report, const DeviceRoof& device, std::ostream& out);

}  // namespace roofsim
