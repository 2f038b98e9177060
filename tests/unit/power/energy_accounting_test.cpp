// Energy accounting from integer counts: per-event energies of the bundled H100 file, the (V/V0)^2 law on the
// compute domain's dynamic energy (FLOPs and on-chip SRAM, not DRAM or links), static power ~ V, DRAM per command,
// and per-op energies that add up to the total whatever the order in which activity was counted.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "models/compute/compute_params.h"
#include "models/power/energy_ledger.h"
#include "models/power/energy_model.h"
#include "sim/config/hardware_params.h"
#include "sim/config/model_params.h"
#include "sim/roofline/roofline.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

HardwareParams h100() {
  return load_hardware(test::config_path("H100-SXM5.toml"));
}

std::size_t engine_index(const HardwareParams& hw, const std::string& name) {
  for (std::size_t i = 0; i < hw.compute.engines.size(); ++i) {
    if (hw.compute.engines[i].name == name) return i;
  }
  FAIL("no engine " << name);
  return 0;
}

std::size_t level_index(const EnergyModel& model, const std::string& name) {
  for (std::size_t i = 0; i < model.level_names().size(); ++i) {
    if (model.level_names()[i] == name) return i;
  }
  FAIL("no level " << name);
  return 0;
}

}  // namespace

TEST_CASE("dynamic energy: FLOPs, SRAM bytes, DRAM bytes and link bytes times the file's energies") {
  const auto hw = h100();
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  auto activity = model.activity();
  activity.flops[model.flop_slot(engine_index(hw, "matrix"), DataType::bf16)] = 1'000'000'000;
  activity.flops[model.flop_slot(engine_index(hw, "vector"), DataType::fp32)] = 2'000'000;
  activity.level_bytes[level_index(model, "smem")] = 3'000'000;
  activity.level_bytes[level_index(model, "l2")] = 4'000'000;
  activity.level_bytes[level_index(model, "dram")] = 5'000'000;
  activity.network_bytes = 6'000'000;
  const auto energy = model.dynamic_energy(activity, hw.power.nominal_voltage_v);
  // H100 file: bf16 0.374 pJ, vector fp32 4.37 pJ, smem 0.888 pJ/B, L2 4.44 pJ/B, HBM 24 pJ/B, NVLink 10 pJ/B.
  CHECK(test::within(energy.compute_j, 1e9 * 0.374e-12 + 2e6 * 4.37e-12, 1e-12));
  CHECK(test::within(energy.level_j[level_index(model, "smem")], 3e6 * 0.888e-12, 1e-12));
  CHECK(test::within(energy.level_j[level_index(model, "l2")], 4e6 * 4.44e-12, 1e-12));
  CHECK(test::within(energy.level_j[level_index(model, "dram")], 5e6 * 24e-12, 1e-12));
  CHECK(test::within(energy.network_j, 6e6 * 10e-12, 1e-12));
  CHECK(energy.static_j() == 0);
}

TEST_CASE("lane operations cost the file's energy per operation of their class on the engine that runs them") {
  const auto hw = h100();
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  const auto class_index = [](EngineOpClass op_class) {
    return static_cast<std::size_t>(std::find(kAllEngineOpClasses.begin(), kAllEngineOpClasses.end(), op_class) -
                                    kAllEngineOpClasses.begin());
  };
  auto activity = model.activity();
  const std::size_t vector = engine_index(hw, "vector"), special = engine_index(hw, "special_function");
  activity.ops[model.op_slot(vector, class_index(EngineOpClass::fp32_fma))] = 3'000'000;
  activity.ops[model.op_slot(vector, class_index(EngineOpClass::fp32_alu))] = 2'000'000;
  activity.ops[model.op_slot(special, class_index(EngineOpClass::exp2))] = 1'000'000;
  // H100 file: fp32 FMA 8.74 pJ, fp32 ALU 5.65 pJ, exp2 6.82 pJ per operation.
  const double expected = 3e6 * 8.74e-12 + 2e6 * 5.65e-12 + 1e6 * 6.82e-12;
  CHECK(test::within(model.dynamic_energy(activity, hw.power.nominal_voltage_v).compute_j, expected, 1e-12));
  const double scale = (0.70 / 0.95) * (0.70 / 0.95);
  CHECK(test::within(model.dynamic_energy(activity, 0.70).compute_j, expected * scale, 1e-12));
}

TEST_CASE("an FMA class without an energy of its own costs two FLOPs of its type, an ALU class its FMA class's") {
  EngineParams engine;
  engine.energy_per_flop_j = {{DataType::fp16, 2e-12}, {DataType::fp32, 5e-12}};
  engine.energy_per_op_j = {{EngineOpClass::fp32_alu, 3e-12}};
  CHECK(engine.op_energy_j(EngineOpClass::fp16_fma) == 4e-12);
  CHECK(engine.op_energy_j(EngineOpClass::fp16_alu) == 4e-12);
  CHECK(engine.op_energy_j(EngineOpClass::fp32_fma) == 10e-12);
  CHECK(engine.op_energy_j(EngineOpClass::fp32_alu) == 3e-12);
  CHECK(engine.op_energy_j(EngineOpClass::bf16_fma) == 0);
  CHECK(engine.op_energy_j(EngineOpClass::exp2) == 0);
}

TEST_CASE("at a lower voltage FLOP and SRAM energies scale with (V/V0)^2 and DRAM and link energies do not") {
  const auto hw = h100();
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  auto activity = model.activity();
  activity.flops[model.flop_slot(engine_index(hw, "matrix"), DataType::fp16)] = 1'000'000;
  activity.level_bytes[level_index(model, "l2")] = 1000;
  activity.level_bytes[level_index(model, "dram")] = 1000;
  activity.network_bytes = 1000;
  const auto nominal = model.dynamic_energy(activity, 0.95);
  const auto low = model.dynamic_energy(activity, 0.70);
  const double scale = (0.70 / 0.95) * (0.70 / 0.95);
  CHECK(test::within(low.compute_j, nominal.compute_j * scale, 1e-12));
  CHECK(test::within(low.level_j[level_index(model, "l2")], nominal.level_j[level_index(model, "l2")] * scale, 1e-12));
  CHECK(low.level_j[level_index(model, "dram")] == nominal.level_j[level_index(model, "dram")]);
  CHECK(low.network_j == nominal.network_j);
  // Static power ~ V: 140 W at 0.95 V.
  CHECK(test::within(model.compute_static_w(0.95), 140, 1e-12));
  CHECK(test::within(model.compute_static_w(0.70), 140 * 0.70 / 0.95, 1e-12));
  // The DRAM background is static power with per-byte energies too (HBM3 file: 55 mW per pseudo-channel, 160 of
  // them), and it does not follow the compute domain's voltage.
  CHECK(test::within(model.memory_static_w(), 0.055 * 160, 1e-12));
}

TEST_CASE("DRAM per command: ACT, PRE, RD, WR and REF energies of the standard and its background per channel") {
  const auto hw = h100();
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_command);
  auto activity = model.activity();
  activity.level_bytes[level_index(model, "dram")] = 1 << 20;  // not charged per byte in this basis
  activity.dram_commands = {10, 9, 100, 50, 2};
  const auto& e = hw.dram->standard.energy;
  const auto energy = model.dynamic_energy(activity, 0.7);
  CHECK(test::within(energy.level_j[level_index(model, "dram")],
                     10 * e.act_j + 9 * e.pre_j + 100 * e.rd_j + 50 * e.wr_j + 2 * e.ref_j, 1e-12));
  // HBM3 file: 55 mW per pseudo-channel; 5 stacks x 16 channels x 2 pseudo-channels.
  CHECK(test::within(model.memory_static_w(), 0.055 * 160, 1e-12));
}

TEST_CASE("the power-aware roofline and the accounting use one law: a one-state ceiling is the cap over the energy") {
  // Choi et al. 2013: with the clock fixed at the state's, a cap bounds the rate at (Pcap - P_static(V)) / (energy
  // per FLOP at V). The energies come from EnergyModel here and from the roofline's own code there.
  auto hw = h100();
  hw.power.dvfs = {{1.2e9, 0.75}};
  hw.power.cap_w = 250;
  const auto device = make_device_roof(hw);
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  RooflineInput input;
  input.flops = 1ULL << 40;
  input.dtype = DataType::bf16;
  input.engine = "matrix";
  const Bytes bytes = 1ULL << 32;  // OI 256 at every level
  auto activity = model.activity();
  activity.flops[model.flop_slot(engine_index(hw, "matrix"), DataType::bf16)] = input.flops;
  for (const auto& level : device.levels) {
    input.bytes.push_back({level.name, bytes});
    activity.level_bytes[level_index(model, level.name)] = bytes;
  }
  const double per_flop = model.dynamic_energy(activity, 0.75).dynamic_j() / static_cast<double>(input.flops);
  // The units' clock power: a second of every SM holding work at 1.2 GHz.
  auto clocked = model.activity();
  clocked.active_unit_cycles = hw.compute.units * 1'200'000'000ULL;
  const double units_w = model.dynamic_energy(clocked, 0.75).dynamic_j();
  CHECK(test::within(active_units_power_w(device, device.dvfs[0]), units_w, 1e-12));
  // Static power: the compute domain's leakage at V and the DRAM background (the roofline's pi_0 is the device's),
  // and the clock power drawn while the units run.
  const double capped = (250 - model.compute_static_w(0.75) - model.memory_static_w() - units_w) / per_flop;
  REQUIRE(model.memory_static_w() > 0);
  CHECK(
      test::within(device_static_power_w(device, 0.75), model.compute_static_w(0.75) + model.memory_static_w(), 1e-12));
  const double peak = peak_flops_per_s(device, DataType::bf16, "matrix", 1.2e9);
  const double memory = 256.0 * device.main_bandwidth_bytes_per_s;
  REQUIRE(capped < peak);
  REQUIRE(capped < memory);
  CHECK(test::within(power_ceiling(device, input).flops_per_s, capped, 1e-9));
}

TEST_CASE("per-op energies add up to the total and static time is shared between the ops running") {
  auto hw = h100();
  hw.power.dvfs = {{1.0e9, 0.7}, {1.98e9, 0.95}};
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  const std::size_t slot = model.flop_slot(engine_index(hw, "matrix"), DataType::bf16);
  EnergyLedger ledger(model, hw.power.dvfs, 3);
  auto a = model.activity();
  a.flops[slot] = 1'000'000;
  a.level_bytes[level_index(model, "dram")] = 4096;
  ledger.add(0, 1, a);
  ledger.add(1, 0, a);
  ledger.add(1, 1, a);
  ledger.add(2, 0, a);
  // Ops: 0 on [10, 100), 1 on [50, 200), 2 on [250, 300); clock fast until 150, slow after; run ends at 300.
  const std::vector<OpInterval> ops = {{10, 100}, {50, 200}, {250, 300}};
  const std::vector<StateInterval> timeline = {{0, 150, 1}, {150, 300, 0}};
  const auto totals = ledger.finish(ops, timeline);
  EnergyBreakdown sum;
  for (const auto& op : totals.ops) sum += op.energy;
  CHECK(test::within(sum.total_j(), totals.total.total_j(), 1e-12));
  // Static energy in total: the whole run at the state in force, plus the DRAM background (8.8 W) all along.
  const double fast_w = model.compute_static_w(0.95), slow_w = model.compute_static_w(0.7);
  const double dram_w = 0.055 * 160;
  CHECK(test::within(totals.total.static_j(), (fast_w * 150 + slow_w * 150 + dram_w * 300) * 1e-15, 1e-12));
  CHECK(test::within(totals.total.memory_static_j, dram_w * 300 * 1e-15, 1e-12));
  // Op 0 owns [0, 10) (nothing runs, it starts next) and [10, 50), shares [50, 100) with op 1.
  CHECK(test::within(totals.ops[0].energy.compute_static_j, fast_w * (10 + 40 + 25) * 1e-15, 1e-12));
  // Op 2 owns the idle [200, 250) before it and its own [250, 300), all slow.
  CHECK(test::within(totals.ops[2].energy.compute_static_j, slow_w * 100 * 1e-15, 1e-12));
  // Time at each state and throttled time of op 1: fast on [50, 150), slow on [150, 200).
  CHECK(totals.ops[1].time_at_state_fs[1] == 100);
  CHECK(totals.ops[1].time_at_state_fs[0] == 50);
  CHECK(totals.ops[1].throttled_fs == 50);
  CHECK(totals.ops[0].throttled_fs == 0);
  // Dynamic: op 1 did the same work at both states.
  const auto fast = model.dynamic_energy(a, 0.95), slow = model.dynamic_energy(a, 0.7);
  CHECK(test::within(totals.ops[1].energy.dynamic_j(), fast.dynamic_j() + slow.dynamic_j(), 1e-12));
  CHECK(totals.ops[1].flops == 2'000'000);
  CHECK(test::within(totals.ops[1].joules_per_flop(), totals.ops[1].energy.total_j() / 2e6, 1e-12));
}

TEST_CASE("the result does not depend on the order or grouping in which activity was counted") {
  const auto hw = h100();
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  const std::size_t slot = model.flop_slot(engine_index(hw, "matrix"), DataType::bf16);
  const std::size_t l2 = level_index(model, "l2");
  std::vector<Activity> pieces;
  for (std::uint64_t i = 1; i <= 50; ++i) {
    auto piece = model.activity();
    piece.flops[slot] = i * 7919;
    piece.level_bytes[l2] = i * 104729;
    pieces.push_back(piece);
  }
  EnergyLedger forward(model, hw.power.dvfs, 1), backward(model, hw.power.dvfs, 1), whole(model, hw.power.dvfs, 1);
  auto sum = model.activity();
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    forward.add(0, 2, pieces[i]);
    backward.add(0, 2, pieces[pieces.size() - 1 - i]);
    sum += pieces[i];
  }
  whole.add(0, 2, sum);
  const std::vector<OpInterval> ops = {{0, 1000}};
  const std::vector<StateInterval> timeline = {{0, 1000, hw.power.dvfs.size() - 1}};
  const double a = forward.finish(ops, timeline).total.total_j();
  CHECK(a == backward.finish(ops, timeline).total.total_j());
  CHECK(a == whole.finish(ops, timeline).total.total_j());
}

TEST_CASE("an active unit's clock power is its cycles times the file's energy per cycle, scaled by (V/V0)^2") {
  const auto hw = h100();
  const EnergyModel model(power_domain_params(hw), DramEnergyBasis::per_byte);
  // H100 file: 1053 pJ per SM-cycle at 0.95 V. 132 SMs for 1 ms at 1.98 GHz: 132 x 1.98e6 cycles.
  auto activity = model.activity();
  activity.active_unit_cycles = 132ULL * 1'980'000;
  const double nominal_w = model.dynamic_energy(activity, 0.95).compute_j / 1e-3;
  CHECK(test::within(nominal_w, 132 * 1.98e9 * 1053e-12, 1e-12));
  // At 0.99 GHz and 0.70 V the same millisecond has half the cycles, each at (0.70 / 0.95)^2 of the energy: the
  // power goes as f V^2.
  activity.active_unit_cycles = 132ULL * 990'000;
  const double low_w = model.dynamic_energy(activity, 0.70).compute_j / 1e-3;
  CHECK(test::within(low_w, nominal_w * 0.5 * (0.70 / 0.95) * (0.70 / 0.95), 1e-12));
  CHECK(!activity.empty());
}
