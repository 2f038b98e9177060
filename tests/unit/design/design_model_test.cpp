// The design model's closed forms against hand-computed cases, and its parts adding up.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/config/hardware_params.h"
#include "sim/design/design_model.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("dies per wafer: pi (d/2)^2 / A - pi d / sqrt(2 A)") {
  // 300 mm wafer, 100 mm^2: 70685.83 / 100 - 942.478 / 14.1421 = 706.858 - 66.643 = 640.215.
  CHECK(dies_per_wafer(300, 100) == doctest::Approx(640.215).epsilon(1e-5));
  // 814 mm^2 (GH100): 86.838 - 942.478 / 40.3485 = 86.838 - 23.358 = 63.480.
  CHECK(dies_per_wafer(300, 814) == doctest::Approx(63.480).epsilon(1e-4));
  // 200 mm wafer, 50 mm^2: 31415.93 / 50 - 628.319 / 10 = 628.319 - 62.832 = 565.487.
  CHECK(dies_per_wafer(200, 50) == doctest::Approx(565.487).epsilon(1e-5));
  CHECK(dies_per_wafer(300, 0) == 0);
}

TEST_CASE("negative-binomial yield (1 + A D0 / alpha)^-alpha and its Poisson limit") {
  // 100 mm^2 at 0.1 /cm^2: 0.1 faults; 1.0333^-3 = 1 / 1.103370 = 0.906314.
  CHECK(negative_binomial_yield(100, 0.1, 3) == doctest::Approx(0.906314).epsilon(1e-5));
  // 814 mm^2 at 0.1 /cm^2: 0.814 faults; 1.271333^2 = 1.616288, x 1.271333 = 2.054838, inverse 0.486656.
  CHECK(negative_binomial_yield(814, 0.1, 3) == doctest::Approx(0.486656).epsilon(1e-5));
  // alpha = 1: 1 / (1 + 0.814) = 0.551268.
  CHECK(negative_binomial_yield(814, 0.1, 1) == doctest::Approx(0.551268).epsilon(1e-5));
  // alpha -> infinity: e^-0.814 = e^-0.8 x e^-0.014 = 0.449329 x 0.986098 = 0.443082.
  CHECK(negative_binomial_yield(814, 0.1, 1e7) == doctest::Approx(0.443082).epsilon(1e-5));
}

TEST_CASE("engine datapath area: the widest data type's FMA array at Horowitz's 45 nm figures") {
  EngineParams engine;
  engine.flops_per_cycle[DataType::fp16] = 1024;  // 512 FMAs x (1640 + 1360) um^2 = 1,536,000 um^2
  engine.flops_per_cycle[DataType::int8] = 2048;  // 1024 x (282 + 36) = 325,632: narrower, shares the array
  CHECK(engine_datapath_area_45nm_um2(engine) == doctest::Approx(1536000));
  engine.ops_per_cycle[EngineOpClass::exp2] = 16;  // 16 x 4 fp32 FMAs x 11884 um^2 = 760,576
  CHECK(engine_datapath_area_45nm_um2(engine) == doctest::Approx(1536000 + 760576));
}

TEST_CASE("H100: the parts add up to the total, and cost and power budget follow from them") {
  const auto hw = load_hardware(test::config_path("H100-SXM5.toml"));
  const auto design = estimate_design(hw);
  const auto& a = design.area;
  CHECK(a.units_on_die == 144);
  double levels = 0;
  for (const auto& level : a.levels) levels += level.area_mm2;
  CHECK(levels == doctest::Approx(a.sram_mm2));
  CHECK(a.compute_logic_mm2 + a.register_file_mm2 + a.sram_mm2 + a.noc_mm2 + a.dram_interface_mm2 + a.links_mm2 +
            a.other_mm2 ==
        doctest::Approx(a.total_mm2));
  // L2: 60 MiB on the die at 8 / 31.8 mm^2 per MiB x 1.2 (high-current) plus 80 banks x 0.02 mm^2.
  CHECK(a.levels.back().area_mm2 == doctest::Approx(60.0 * 8 / 31.8 * 1.2 + 80 * 0.02));
  // Six HBM interfaces (five used, one disabled) at 15 mm^2.
  CHECK(a.dram_interface_mm2 == doctest::Approx(90));
  // Cost: wafer over good dies, 80 GiB of HBM at 15 USD/GB, interposer over dies and five stacks.
  const auto& c = design.cost;
  CHECK(c.silicon_usd ==
        doctest::Approx(17000 / (dies_per_wafer(300, a.total_mm2) * negative_binomial_yield(a.total_mm2, 0.1, 3))));
  CHECK(c.dram_usd == doctest::Approx(80.0 * (1 << 30) / 1e9 * 15));
  CHECK(c.interposer_usd == doctest::Approx((a.total_mm2 + 5 * 110) * 1.25 * 0.4));
  CHECK(c.total_usd == doctest::Approx(c.silicon_usd + c.dram_usd + c.interposer_usd + 300));
  // Power: fp8 at 132 x 8192 x 1.83 GHz x 0.241 pJ (477 W) is the hungriest engine (bf16: 989 TFLOP/s x 0.374 pJ,
  // 370 W; fp64 tensor: 66.9 TFLOP/s x 4.86 pJ, 325 W).
  const auto& p = design.power;
  CHECK(p.compute_w == doctest::Approx(132.0 * 8192 * 1.83e9 * 0.241e-12).epsilon(1e-6));
  CHECK(p.dram_w == doctest::Approx(hw.dram->peak_bandwidth_bytes_per_s() * 24e-12));
  // Every SM holding work at the fp8 peak's clock: 132 x 1053 pJ x 1.83 GHz (254 W).
  CHECK(p.active_units_w == doctest::Approx(132.0 * 1053e-12 * 1.83e9).epsilon(1e-6));
  CHECK(p.tdp_w == doctest::Approx(p.compute_w + p.active_units_w + p.sram_dynamic_w + p.dram_w + p.links_w +
                                   p.logic_leakage_w + p.sram_leakage_w));
}

TEST_CASE("a derived TDP becomes the governor's cap when the file asks for it") {
  auto hw = load_hardware(test::config_path("H100-SXM5.toml"), {{"power.tdp_source", "derived"}});
  const auto derived = apply_derived_tdp(hw);
  REQUIRE(derived.has_value());
  CHECK(hw.power.tdp_w == doctest::Approx(estimate_design(hw).power.tdp_w));
  CHECK(hw.power.cap_w == doctest::Approx(*derived));
  auto datasheet = load_hardware(test::config_path("H100-SXM5.toml"));
  CHECK_FALSE(apply_derived_tdp(datasheet).has_value());
  CHECK(datasheet.power.cap_w == doctest::Approx(700));
}
