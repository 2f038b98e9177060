// Device-level lines of the chart: compute lines per engine and peak, bandwidth lines, ridge points at P / B, and the
// power-capped curve equal to the power-aware ceiling of an op at that intensity.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/roofline/chart_lines.h"
#include "tests/unit/roofline/roofline_test_device.h"

using namespace roofsim;

TEST_CASE("compute lines group the data types of one engine that share a peak and ridges sit at P / B") {
  auto device = test::simple_device(1000e12, 2e12);
  device.compute.engines[0].flops_per_cycle[DataType::bf16] = 1e6;  // same peak as fp16
  device.compute.engines[0].flops_per_cycle[DataType::fp8] = 2e6;
  EngineParams vector;
  vector.name = "vector";
  vector.clock_hz = 1e9;
  vector.flops_per_cycle[DataType::fp32] = 5e4;
  device.compute.engines.push_back(vector);
  const auto lines = device_lines(device);
  REQUIRE(lines.compute.size() == 3);
  CHECK(lines.compute[0].label() == "matrix fp8");
  CHECK(lines.compute[0].peak_flops_per_s == doctest::Approx(2000e12));
  CHECK(lines.compute[1].label() == "matrix bf16/fp16");
  CHECK(lines.compute[2].label() == "vector fp32");
  REQUIRE(lines.ridges.size() == 3);
  CHECK(lines.ridges[0].oi == doctest::Approx(1000));
  CHECK(lines.ridges[1].oi == doctest::Approx(500));
  CHECK(lines.ridges[2].oi == doctest::Approx(25));
}

TEST_CASE("bandwidth lines: levels then the DRAM row lines then latency and network where they exist") {
  auto device = test::simple_device(1000e12, 2e12);
  CHECK(device_lines(device).bandwidth.size() == 1);
  DramRowBandwidth rows;
  rows.all_hit_bytes_per_s = 1.8e12;
  rows.all_miss_bytes_per_s = 0.6e12;
  device.dram_rows = rows;
  device.bytes_in_flight = 1 << 20;
  device.memory_latency_s = 1e-6;
  device.network_bandwidth_bytes_per_s = 4e11;
  const auto lines = device_lines(device);
  REQUIRE(lines.bandwidth.size() == 5);
  CHECK(lines.bandwidth[1].kind == BandwidthKind::dram_all_hit);
  CHECK(lines.bandwidth[2].bandwidth_bytes_per_s == doctest::Approx(0.6e12));
  CHECK(lines.bandwidth[3].bandwidth_bytes_per_s == doctest::Approx(1048576 / 1e-6));
  CHECK(lines.bandwidth[4].kind == BandwidthKind::network);
}

TEST_CASE("the power-capped curve is the power-aware ceiling and the cap alone bounds it from above") {
  auto device = test::simple_device(100e12, 2e12);
  device.compute.engines[0].energy_per_flop_j[DataType::fp16] = 1e-12;
  device.levels[0].energy_per_byte_j = 20e-12;
  device.static_power_w = 50;
  device.power_cap_w = 170;
  for (const auto& point : power_curve(device, DataType::fp16, "", 1, 1000, 8)) {
    const double oi = point.oi;
    const double capped = 120.0 / (1e-12 + 20e-12 / oi);
    CHECK(point.flops_per_s == doctest::Approx(std::min({100e12, 2e12 * oi, capped})).epsilon(1e-6));
    CHECK(nominal_power_bound_flops_per_s(device, DataType::fp16, "", oi) == doctest::Approx(capped));
  }
  device.power_cap_w = 0;
  CHECK(nominal_power_bound_flops_per_s(device, DataType::fp16, "", 10) == 0.0);
}
