// The governor module between a stub device and the clock domain. The stub is a perfectly compute-bound op: it does
// N FLOPs (and moves N / OI bytes at every level) at a rate that follows the domain's clock, and it re-times its end
// when the clock changes (the remaining cycles stay), as the compute units do. Its power at a state is thus the
// closed form P(s) = R (f_s / f_0) [e_flop (V_s / V_0)^2 + e_sram (V_s / V_0)^2 / OI + e_dram / OI] + P_static V_s /
// V_0.
#include <doctest/doctest.h>

#include <systemc>

#include <cmath>

#include "models/power/governor_module.h"
#include "sim/config/hardware_params.h"
#include "sim/config/model_params.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

constexpr TimeFs kUs = 1'000'000'000;

class StubOp final : public sc_core::sc_module, public DeviceActivity, public ClockListener {
 public:
  StubOp(const sc_core::sc_module_name& name, const EnergyModel& model, ClockDomain& clock, std::size_t slot,
         double flops, FlopsPerSecond nominal_rate, double oi)
      : sc_core::sc_module(name),
        model_(model),
        clock_(clock),
        slot_(slot),
        total_(flops),
        rate_(nominal_rate),
        oi_(oi) {
    SC_HAS_PROCESS(StubOp);
    SC_METHOD(finish);
    sensitive << done_event_;
    dont_initialize();
    end_fs_ = static_cast<TimeFs>(std::llround(total_ / rate_ * 1e15));
    done_event_.notify(sc_core::sc_time::from_value(end_fs_));
    clock.add_listener(*this);
  }

  [[nodiscard]] std::size_t op_count() const override { return 1; }
  void add_op_activity(std::size_t, Activity& into) const override {
    const double flops = flops_at(sc_core::sc_time_stamp().value());
    into.flops[slot_] += static_cast<Flops>(flops);
    const auto bytes = static_cast<Bytes>(flops / oi_);
    for (auto& level : into.level_bytes) level += bytes;
  }
  [[nodiscard]] bool finished(TimeFs& end_fs) const override {
    end_fs = end_fs_;
    return done_;
  }
  void clock_changed(TimeFs now_fs, Hertz old_clock_hz, Hertz new_clock_hz) override {
    base_flops_ = flops_at(now_fs);  // at the old clock
    base_fs_ = now_fs;
    scale_ = new_clock_hz / clock_.states().back().clock_hz;
    end_fs_ = retime_fs(end_fs_, now_fs, old_clock_hz, new_clock_hz);
    done_event_.cancel();
    done_event_.notify(sc_core::sc_time::from_value(end_fs_ - now_fs));
  }
  [[nodiscard]] TimeFs end_fs() const { return end_fs_; }

 private:
  [[nodiscard]] double flops_at(TimeFs now) const {
    const TimeFs t = std::min(now, end_fs_);
    return std::min(total_, base_flops_ + rate_ * scale_ * static_cast<double>(t - base_fs_) * 1e-15);
  }
  void finish() { done_ = true; }

  const EnergyModel& model_;
  ClockDomain& clock_;
  std::size_t slot_;
  double total_, rate_, oi_;
  double base_flops_ = 0;
  TimeFs base_fs_ = 0;
  double scale_ = 1;
  TimeFs end_fs_ = 0;
  bool done_ = false;
  sc_core::sc_event done_event_;
};

struct Bench {
  HardwareParams hw = load_hardware(test::config_path("H100-SXM5.toml"));
  double oi = 2000;
  double flops = 0;
  FlopsPerSecond rate = 0;

  // Dynamic energy per FLOP (with its 1 / OI bytes at every level) at `voltage`.
  [[nodiscard]] double per_flop_j(const EnergyModel& model, Volts voltage) const {
    auto one = model.activity();
    one.flops[model.flop_slot(0, DataType::bf16)] = 1'000'000'000;
    for (auto& level : one.level_bytes) level = static_cast<Bytes>(1e9 / oi);
    return model.dynamic_energy(one, voltage).dynamic_j() / 1e9;
  }
  // Closed-form power at state s.
  [[nodiscard]] Watts power_w(const EnergyModel& model, std::size_t s) const {
    const auto& state = hw.power.dvfs[s];
    const double scale = state.clock_hz / hw.power.dvfs.back().clock_hz;
    return rate * scale * per_flop_j(model, state.voltage_v) + model.compute_static_w(state.voltage_v) +
           model.memory_static_w();
  }
};

// A compute-bound op at the H100's bf16 peak, `seconds` long at the nominal clock.
Bench at_peak(double seconds) {
  Bench bench;
  bench.rate = 132.0 * 4096 * 1.83e9;
  bench.flops = bench.rate * seconds;
  return bench;
}

struct Run {
  std::vector<PowerSample> trace;
  EnergyTotals totals;
  TimeFs end_fs = 0;
  std::size_t final_state = 0;
  std::vector<std::pair<TimeFs, double>> followed;  // the op's energies kept by GovernorModule::follow
};

Run simulate(const Bench& bench, Watts cap_w) {
  const EnergyModel model(power_domain_params(bench.hw), DramEnergyBasis::per_byte);
  ClockDomain clock(bench.hw.power.dvfs, bench.hw.power.nominal_clock_hz);
  REQUIRE(bench.hw.compute.engines[0].name == "matrix");
  StubOp op("op", model, clock, model.flop_slot(0, DataType::bf16), bench.flops, bench.rate, bench.oi);
  GovernorParams params{cap_w, 10 * kUs, 1 * kUs, bench.hw.power.dvfs, bench.hw.power.nominal_voltage_v};
  GovernorModule governor("governor", params, model, clock, op);
  governor.follow(0);
  sc_core::sc_start();
  Run run;
  run.followed = governor.unfollow(0);
  run.trace = governor.trace();
  run.end_fs = op.end_fs();
  run.totals = governor.totals({{0, op.end_fs()}});
  run.final_state = clock.state();
  return run;
}

}  // namespace

TEST_CASE("power governor module: without a cap the trace shows the closed-form power and the energies add up") {
  const Bench bench = at_peak(2e-3);
  const EnergyModel model(power_domain_params(bench.hw), DramEnergyBasis::per_byte);
  const auto run = simulate(bench, 0);
  CHECK(run.final_state == bench.hw.power.dvfs.size() - 1);
  CHECK(test::within(static_cast<double>(run.end_fs) * 1e-15, 2e-3, 1e-9));
  const Watts expected = bench.power_w(model, bench.hw.power.dvfs.size() - 1);
  for (const auto& sample : run.trace) CHECK(test::within(sample.power.total_w(), expected, 1e-6));
  // The trace tiles the run, its integral is the total energy, and the per-op energies add up to it.
  double integral = 0;
  TimeFs at = 0;
  for (const auto& sample : run.trace) {
    CHECK(sample.start_fs == at);
    at = sample.end_fs;
    integral += sample.power.total_w() * static_cast<double>(sample.end_fs - sample.start_fs) * 1e-15;
  }
  CHECK(at == run.end_fs);
  CHECK(test::within(integral, run.totals.total.total_j(), 1e-9));
  CHECK(test::within(run.totals.ops[0].energy.total_j(), run.totals.total.total_j(), 1e-12));
  CHECK(test::within(run.totals.total.total_j(), expected * 2e-3, 1e-6));
}

TEST_CASE(
    "power governor module: under a cap a compute-bound op settles at the highest fitting state and slows by f0 / f") {
  const Bench bench = at_peak(5e-3);
  const EnergyModel model(power_domain_params(bench.hw), DramEnergyBasis::per_byte);
  const Watts cap = 450;
  std::size_t fitting = 0;
  for (std::size_t s = 0; s < bench.hw.power.dvfs.size(); ++s) {
    if (bench.power_w(model, s) <= cap) fitting = s;
  }
  REQUIRE(fitting + 1 < bench.hw.power.dvfs.size());
  const auto run = simulate(bench, cap);
  CHECK(run.final_state == fitting);
  const double ratio = bench.hw.power.dvfs.back().clock_hz / bench.hw.power.dvfs[fitting].clock_hz;
  CHECK(test::within(static_cast<double>(run.end_fs) * 1e-15, 5e-3 * ratio, 0.05));
  // After settling, every window is under the cap; before it, the excess lasts at most a window plus a window and
  // a reaction delay per step.
  const std::size_t steps = bench.hw.power.dvfs.size() - 1 - fitting;
  const TimeFs allowed = 10 * kUs + steps * (11 * kUs);
  for (const auto& sample : run.trace) {
    if (sample.start_fs >= allowed) CHECK(sample.power.total_w() <= cap);
  }
  double integral = 0;
  for (const auto& sample : run.trace) integral += sample.energy_j;
  CHECK(test::within(integral, run.totals.total.total_j(), 1e-9));
  CHECK(run.totals.ops[0].throttled_fs > 0);
}

TEST_CASE(
    "power governor module: an op followed through clock changes has its energy at the top voltage by each sample") {
  // Under the cap the op runs at lower clocks and voltages, but the energy kept for it weighs its FLOPs and bytes at
  // the top state's voltage: by each sample's end, the work done by then at the top state's energy per FLOP.
  const Bench bench = at_peak(1e-3);
  const EnergyModel model(power_domain_params(bench.hw), DramEnergyBasis::per_byte);
  const auto run = simulate(bench, 450);
  REQUIRE(run.trace.size() > 2);
  REQUIRE(run.followed.size() == run.trace.size());
  const double per_flop_j = bench.per_flop_j(model, bench.hw.power.dvfs.back().voltage_v);
  CHECK(test::within(run.followed.back().second, bench.flops * per_flop_j, 1e-6));
  CHECK(run.followed.back().first == run.end_fs);
  // The ledger books the same work at the lower voltages it ran at: less dynamic energy than the top state's.
  CHECK(run.totals.ops[0].energy.dynamic_j() < run.followed.back().second * 0.99);
  for (std::size_t i = 0; i < run.trace.size(); ++i) {
    CHECK(run.followed[i].first == run.trace[i].end_fs);
    if (i > 0) CHECK(run.followed[i].second >= run.followed[i - 1].second);
  }
}
