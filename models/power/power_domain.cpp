#include "models/power/power_domain.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace roofsim {

namespace {

TimeFs seconds_fs(Seconds seconds) {
  return static_cast<TimeFs>(std::llround(seconds * 1e15));
}

Seconds fs_seconds(TimeFs fs) {
  return static_cast<double>(fs) * 1e-15;
}

Hertz nominal_clock(const PowerDomainParams& params) {
  if (params.power.nominal_clock_hz > 0) return params.power.nominal_clock_hz;
  Hertz fastest = 0;
  for (const auto& engine : params.engines) fastest = std::max(fastest, engine.clock_hz);
  return fastest;
}

}  // namespace

GovernorParams governor_params(const PowerDomainParams& domain) {
  GovernorParams params;
  params.cap_w = domain.power.cap_w;
  // A window of 0 would make the module spin; the schema refuses it, a hand-built device gets the schema default.
  params.window_fs = domain.power.window_s > 0 ? seconds_fs(domain.power.window_s) : seconds_fs(10e-6);
  params.reaction_delay_fs = seconds_fs(domain.power.reaction_delay_s);
  // The up-step hysteresis in whole windows (at least one); a hand-built device gets the schema default, 80 us.
  const TimeFs up_hold_fs = seconds_fs(domain.power.up_hold_s > 0 ? domain.power.up_hold_s : 80e-6);
  params.up_windows =
      std::max<std::size_t>(1, static_cast<std::size_t>((up_hold_fs + params.window_fs - 1) / params.window_fs));
  params.states = domain.power.dvfs;
  if (params.states.empty()) {
    // A device built in code may leave the power section empty: one state at its fastest engine clock.
    const Volts nominal = domain.power.nominal_voltage_v > 0 ? domain.power.nominal_voltage_v : 1.0;
    params.states.push_back({nominal_clock(domain), nominal});
  }
  params.nominal_voltage_v = domain.power.nominal_voltage_v > 0 ? domain.power.nominal_voltage_v : 1.0;
  return params;
}

bool PowerRunStats::throttled() const {
  for (std::size_t s = 0; s + 1 < time_at_state_s.size(); ++s) {
    if (time_at_state_s[s] > 0) return true;
  }
  return false;
}

PowerDomain::PowerDomain(const PowerDomainParams& params, DramEnergyBasis dram_basis)
    : params_(governor_params(params)),
      model_(params, dram_basis),
      clock_(params_.states,
             params.power.nominal_clock_hz > 0 ? params.power.nominal_clock_hz : params_.states.back().clock_hz) {}

void PowerDomain::elaborate(const DeviceActivity& device, DeviceScheduler* scheduler) {
  if (governor_) throw std::logic_error("PowerDomain::elaborate: called twice");
  governor_ = std::make_unique<GovernorModule>("power_governor", params_, model_, clock_, device, scheduler);
}

PowerRunStats PowerDomain::stats(const std::vector<OpInterval>& ops) const {
  if (!governor_) throw std::logic_error("PowerDomain::stats: not elaborated");
  const auto totals = governor_->totals(ops);
  PowerRunStats stats;
  stats.cap_w = params_.cap_w;
  stats.states = params_.states;
  stats.energy_j = totals.total.total_j();
  stats.average_power_w = totals.average_power_w();
  for (const TimeFs fs : totals.time_at_state_fs) stats.time_at_state_s.push_back(fs_seconds(fs));
  stats.clock_changes = clock_.changes();
  for (const auto& op : totals.ops) {
    OpPowerStats row;
    row.energy_j = op.energy.total_j();
    row.dynamic_j = op.energy.dynamic_j();
    row.static_j = op.energy.static_j();
    row.average_power_w = op.average_power_w();
    row.joules_per_flop = op.joules_per_flop();
    for (const TimeFs fs : op.time_at_state_fs) row.time_at_state_s.push_back(fs_seconds(fs));
    row.throttled_s = fs_seconds(op.throttled_fs);
    stats.ops.push_back(row);
  }
  stats.trace = governor_->trace();
  stats.governor_wakes = governor_->wakes();
  return stats;
}

}  // namespace roofsim
