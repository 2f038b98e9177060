// The engines' rates per operation class in the bundled device files: every device rates vector FMA and ALU work
// and has a special-function engine, its vector FMA rate is half its FLOP rate (an FMA is two FLOPs), a file that
// breaks that rule is refused naming the key, and the routes send each kind of work to the engine that rates it.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/core/input_error.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("every bundled device rates its vector and special-function work, consistently with its FLOP peaks") {
  for (const auto& entry : std::filesystem::directory_iterator(test::config_path(""))) {
    if (entry.path().extension() != ".toml") continue;
    const auto hw = load_hardware(entry.path());
    CAPTURE(hw.name);
    const auto* vector = hw.compute.engine("vector");
    const auto* special = hw.compute.engine("special_function");
    REQUIRE(vector != nullptr);
    REQUIRE(special != nullptr);
    CHECK(vector->rates(EngineOpClass::fp32_fma));
    CHECK(vector->rates(EngineOpClass::fp32_alu));
    CHECK(special->rates(EngineOpClass::exp2));
    CHECK(special->rates(EngineOpClass::reciprocal));
    CHECK(special->rates(EngineOpClass::rsqrt));
    CHECK(vector->flops_per_cycle.at(DataType::fp32) ==
          doctest::Approx(2 * vector->ops_per_cycle.at(EngineOpClass::fp32_fma)));
    // The routes of an fp32 op's vector and special-function work.
    const auto routes = hw.compute.routes(*vector, DataType::fp32, DataType::fp32);
    CHECK(hw.compute.engines[routes[1].index].name == "vector");
    CHECK(routes[1].per_unit_per_s ==
          doctest::Approx(vector->ops_per_cycle.at(EngineOpClass::fp32_fma) * vector->clock_hz));
    CHECK(hw.compute.engines[routes[3].index].name == "special_function");
    CHECK(routes[3].per_unit_per_s ==
          doctest::Approx(special->ops_per_cycle.at(EngineOpClass::exp2) * special->clock_hz));
  }
}

TEST_CASE("the CUDA throughput table's SFU and FP32 rates per SM on A100 and H100") {
  const auto a100 = load_hardware(test::config_path("A100-SXM4-80GB.toml"));
  const auto h100 = load_hardware(test::config_path("H100-SXM5.toml"));
  CHECK(a100.compute.engine("special_function")->ops_per_cycle.at(EngineOpClass::exp2) == 16);
  CHECK(a100.compute.engine("vector")->ops_per_cycle.at(EngineOpClass::fp32_fma) == 64);
  CHECK(h100.compute.engine("special_function")->ops_per_cycle.at(EngineOpClass::exp2) == 16);
  CHECK(h100.compute.engine("vector")->ops_per_cycle.at(EngineOpClass::fp32_fma) == 128);
  CHECK(a100.compute.kernel_schedule == KernelSchedule::serial);
  CHECK(h100.compute.kernel_schedule == KernelSchedule::pingpong);
}

TEST_CASE("an FMA rate that is not half the FLOP rate is refused, naming the key") {
  try {
    (void)load_hardware(test::config_path("H100-SXM5.toml"),
                        {{"compute.engines.vector.ops_per_cycle.fp32_fma", "100"}});
    FAIL("accepted");
  } catch (const InputError& error) {
    const std::string message = error.what();
    CHECK(message.find("fp32_fma") != std::string::npos);
    CHECK(message.find("flops_per_cycle.fp32") != std::string::npos);
  }
}

TEST_CASE("without a special-function engine, transcendentals run on the vector lanes at their FP32 FMA rate") {
  ComputeParams compute;
  compute.units = 1;
  compute.engines = {EngineParams{"matrix", 1e9, {{DataType::bf16, 1024}}, {}, {}},
                     EngineParams{"vector", 1e9, {{DataType::fp32, 256}, {DataType::bf16, 256}}, {}, {}}};
  const auto routes = compute.routes(compute.engines[0], DataType::bf16, DataType::fp32);
  CHECK(routes[0].index == 0);
  CHECK(routes[0].per_unit_per_s == doctest::Approx(1024e9));
  CHECK(routes[1].index == 1);
  CHECK(routes[1].per_unit_per_s == doctest::Approx(128e9));  // half the FLOP rate
  CHECK(routes[2].per_unit_per_s == doctest::Approx(128e9));  // no ALU rate: the FMA pipe's
  CHECK(routes[3].index == 1);
  CHECK(routes[3].per_unit_per_s == doctest::Approx(128e9));
}
