// Over many devices and intensities: no ceiling exceeds classic, none is NaN, infinite or negative, and binding is the
// lowest ceiling with the tie order.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "sim/config/data_paths.h"
#include "sim/config/hardware_params.h"
#include "sim/roofline/roofline.h"
#include "tests/unit/roofline/roofline_test_device.h"

using namespace roofsim;

namespace {

// log-uniform in [lo, hi] from the raw engine output (the distribution classes are not portable).
double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  const double u = static_cast<double>(rng() >> 11) / 9007199254740992.0;
  return lo * std::pow(hi / lo, u);
}

bool coin(std::mt19937_64& rng) {
  return (rng() & 1U) != 0;
}

DeviceRoof random_device(std::mt19937_64& rng) {
  auto device = test::simple_device(log_uniform(rng, 1e11, 1e16), log_uniform(rng, 1e10, 1e13));
  if (coin(rng))
    device.levels.insert(device.levels.begin(), RoofLevel{"l2", log_uniform(rng, 1e12, 1e14), 1e-12, true});
  if (coin(rng))
    device.levels.insert(device.levels.begin(), RoofLevel{"l1", log_uniform(rng, 1e13, 1e15), 1e-13, true});
  device.levels.back().energy_per_byte_j = coin(rng) ? log_uniform(rng, 1e-12, 1e-10) : 0.0;
  device.compute.engines[0].energy_per_flop_j[DataType::fp16] = coin(rng) ? log_uniform(rng, 1e-13, 1e-11) : 0.0;
  if (coin(rng)) {
    DramRowBandwidth rows;
    rows.peak_bytes_per_s = device.main_bandwidth_bytes_per_s;
    rows.all_hit_bytes_per_s = rows.peak_bytes_per_s * log_uniform(rng, 0.5, 1.0);
    rows.all_miss_bytes_per_s = rows.all_hit_bytes_per_s * log_uniform(rng, 0.05, 1.0);
    device.dram_rows = rows;
  }
  if (coin(rng)) {
    device.bytes_in_flight = static_cast<Bytes>(log_uniform(rng, 1e4, 1e8));
    device.memory_latency_s = log_uniform(rng, 1e-7, 2e-6);
  }
  if (coin(rng)) device.launch_latency_s = log_uniform(rng, 1e-6, 1e-5);
  if (coin(rng)) {
    device.power_cap_w = log_uniform(rng, 10, 1000);
    device.static_power_w = coin(rng) ? log_uniform(rng, 1, 2000) : 0.0;
    device.dvfs = {{0.6e9, 0.75}, {0.8e9, 0.87}, {1e9, 1.0}};
  }
  if (coin(rng)) device.network_bandwidth_bytes_per_s = log_uniform(rng, 1e9, 1e12);
  return device;
}

}  // namespace

TEST_CASE("no ceiling exceeds classic / none is NaN or infinite / binding is the slowest (2000 devices x 40 ops)") {
  std::mt19937_64 rng(20260129);
  int checked = 0;
  for (int d = 0; d < 2000; ++d) {
    const auto device = random_device(rng);
    for (int o = 0; o < 40; ++o) {
      RooflineInput input;
      input.flops = coin(rng) || o == 0 ? static_cast<Flops>(log_uniform(rng, 1e3, 1e16)) : 0;
      for (const auto& level : device.levels) {
        input.bytes.push_back({level.name, o == 1 ? 0 : static_cast<Bytes>(log_uniform(rng, 1, 1e13))});
      }
      input.row_hit_rate = static_cast<double>(rng() % 1001) / 1000.0;
      input.network_bytes = coin(rng) ? static_cast<Bytes>(log_uniform(rng, 1, 1e11)) : 0;
      const auto result = evaluate_roofline(device, input);
      const double classic = result.ceilings.classic.flops_per_s;
      const double classic_s = result.ceilings.classic.time_s;
      REQUIRE(std::isfinite(classic_s));
      double slowest_s = classic_s;
      for (const auto variant : kAllVariants) {
        const auto& ceiling = result.ceilings[variant];
        REQUIRE(std::isfinite(ceiling.flops_per_s));
        REQUIRE(ceiling.flops_per_s >= 0.0);
        REQUIRE(ceiling.flops_per_s <= classic * (1 + 1e-12));
        REQUIRE(ceiling.time_s >= classic_s * (1 - 1e-12));
        REQUIRE_FALSE(ceiling.bound_by.empty());
        // Only a cap below the static power at every state makes a time infinite.
        if (!std::isfinite(ceiling.time_s)) REQUIRE(variant == Variant::power);
        if (input.flops > 0 && std::isfinite(ceiling.time_s)) {
          REQUIRE(ceiling.flops_per_s * ceiling.time_s == doctest::Approx(static_cast<double>(input.flops)));
        }
        slowest_s = std::max(slowest_s, ceiling.time_s);
      }
      REQUIRE(result.ceilings[result.binding].time_s >= slowest_s * (1 - 1e-9));
      for (const auto variant : kAllVariants) {
        if (variant == result.binding) break;
        // Every variant before the binding one is strictly faster (else it would have won the tie).
        REQUIRE(result.ceilings[variant].time_s < result.ceilings[result.binding].time_s);
      }
      REQUIRE(result.bound_by == result.ceilings[result.binding].bound_by);
      ++checked;
    }
  }
  CHECK(checked == 80000);
}

TEST_CASE("every bundled device: over intensities 1e-3 to 1e5 and every data type no ceiling exceeds classic") {
  int checked = 0;
  for (const auto& file : bundled_files("configs")) {
    const auto device = make_device_roof(load_hardware(file));
    for (const auto& engine : device.compute.engines) {
      for (const auto& [dtype, flops_per_cycle] : engine.flops_per_cycle) {
        for (int step = -12; step <= 20; ++step) {
          const double oi = std::pow(10.0, step / 4.0);
          RooflineInput input;
          input.flops = 1ULL << 40;
          for (const auto& level : device.levels) {
            input.bytes.push_back({level.name, static_cast<Bytes>(std::ceil(static_cast<double>(input.flops) / oi))});
          }
          input.dtype = dtype;
          input.engine = engine.name;
          input.row_hit_rate = (step % 3) / 2.0;
          input.network_bytes = step % 2 == 0 ? input.flops / 8 : 0;
          const auto result = evaluate_roofline(device, input);
          INFO(file.filename().string() << " " << engine.name << " " << to_string(dtype) << " OI " << oi);
          for (const auto variant : kAllVariants) {
            const double value = result.ceilings[variant].flops_per_s;
            CHECK(std::isfinite(value));
            CHECK(value > 0.0);
            CHECK(value <= result.ceilings.classic.flops_per_s * (1 + 1e-12));
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1000);
}
