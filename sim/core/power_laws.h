#pragma once
// The two scaling laws of the compute power domain, in one place so that the power-aware roofline
// (sim/roofline/roofline.cpp) and the simulated energy accounting (models/power/) cannot disagree.
//
// CMOS power: P = alpha C V^2 f + V I_leak (Rabaey, Chandrakasan and Nikolic, "Digital Integrated Circuits", 2nd ed.,
// 2003, ch. 5). Dynamic energy per operation is C V^2, so it scales with (V / V_nominal)^2; leakage power is V x I_leak
// and, with the leakage current taken as constant over the DVFS range, scales with V / V_nominal (the first-order model
// Choi et al. use for the constant power pi_0, IPDPS 2013 and 2014).
#include "sim/core/units.h"

namespace roofsim {

// Static (leakage) power of a domain at voltage `voltage_v`, given its figure at the nominal voltage.
[[nodiscard]] inline Watts static_power_at_w(Watts static_nominal_w, Volts voltage_v, Volts nominal_voltage_v) {
  return nominal_voltage_v > 0 ? static_nominal_w * voltage_v / nominal_voltage_v : static_nominal_w;
}

// Factor on a dynamic energy given at the nominal voltage when the domain runs at `voltage_v`: (V / V_nominal)^2.
[[nodiscard]] inline double dynamic_energy_scale(Volts voltage_v, Volts nominal_voltage_v) {
  if (nominal_voltage_v <= 0) return 1.0;
  const double ratio = voltage_v / nominal_voltage_v;
  return ratio * ratio;
}

}  // namespace roofsim
