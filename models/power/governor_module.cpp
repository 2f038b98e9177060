#include "models/power/governor_module.h"

namespace roofsim {

GovernorModule::GovernorModule(const sc_core::sc_module_name& name, const GovernorParams& params,
                               const EnergyModel& model, ClockDomain& clock, const DeviceActivity& device)
    : sc_core::sc_module(name),
      model_(model),
      clock_(clock),
      device_(device),
      policy_(params),
      ledger_(model, params.states, device.op_count()),
      seen_(device.op_count(), model.activity()),
      scratch_(model.activity()) {
  SC_HAS_PROCESS(GovernorModule);
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
  wake_event_.notify(sc_core::sc_time::from_value(policy_.next_wake_fs()));
}

void GovernorModule::arm(TimeFs now_fs) {
  wake_event_.notify(sc_core::sc_time::from_value(policy_.next_wake_fs() - now_fs));
}

void GovernorModule::close_interval(TimeFs end_fs) {
  if (end_fs <= interval_start_fs_) return;
  auto total = model_.activity();
  for (std::size_t op = 0; op < seen_.size(); ++op) {
    scratch_ = model_.activity();
    device_.add_op_activity(op, scratch_);
    Activity delta = scratch_;
    delta -= seen_[op];
    seen_[op] = scratch_;
    if (delta.empty()) continue;
    ledger_.add(op, clock_.state(), delta);
    total += delta;
  }
  const Volts voltage = clock_.voltage_v();
  const auto dynamic = model_.dynamic_energy(total, voltage);
  const double seconds = static_cast<double>(end_fs - interval_start_fs_) * 1e-15;
  PowerSample sample;
  sample.start_fs = interval_start_fs_;
  sample.end_fs = end_fs;
  sample.state = clock_.state();
  sample.clock_hz = clock_.clock_hz();
  sample.voltage_v = voltage;
  const Joules dram_j = model_.dram_index() < dynamic.level_j.size() ? dynamic.level_j[model_.dram_index()] : 0.0;
  sample.power.domain_dynamic_w = (dynamic.compute_j + dynamic.sram_j(model_.dram_index())) / seconds;
  sample.power.other_dynamic_w = (dram_j + dynamic.network_j) / seconds;
  sample.power.domain_static_w = model_.compute_static_w(voltage);
  sample.power.other_static_w = model_.memory_static_w();
  sample.energy_j = dynamic.dynamic_j() + (sample.power.domain_static_w + sample.power.other_static_w) * seconds;
  trace_.push_back(sample);
  interval_start_fs_ = end_fs;
}

void GovernorModule::wake() {
  if (done_) return;
  ++wakes_;
  const TimeFs now = sc_core::sc_time_stamp().value();
  TimeFs end = 0;
  if (device_.finished(end)) {
    // The run ended at `end` (at most now): the last interval stops there and the governor sleeps for good, so
    // that it does not keep the simulation alive.
    close_interval(std::max(end, interval_start_fs_));
    done_ = true;
    return;
  }
  const bool measured_window = !policy_.change_pending();
  const PowerSplit window = [&] {
    close_interval(now);
    return trace_.empty() || trace_.back().end_fs != now ? PowerSplit{} : trace_.back().power;
  }();
  if (measured_window) {
    (void)policy_.window_ended(now, window);
  } else {
    clock_.set_state(policy_.apply(now), now);
  }
  arm(now);
}

EnergyTotals GovernorModule::totals(const std::vector<OpInterval>& ops) const {
  return ledger_.finish(ops, clock_.timeline(interval_start_fs_));
}

}  // namespace roofsim
