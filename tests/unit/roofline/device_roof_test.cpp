// The device figures the rooflines use, derived from a hardware file: peaks from units x FLOPs/cycle x clock, the
// levels with DRAM last, Little's-law bytes in flight, DRAM row bandwidths from the standard's timing.
#include <doctest/doctest.h>

#include <fstream>

#include "sim/config/hardware_params.h"
#include "sim/roofline/roofline.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// 100 units x 20000 FLOP/cycle x 1 GHz = 2 PFLOP/s fp16; DRAM: 4 stacks x 8 channels x 2 pseudo-channels x 64 bit x
// 6.4 Gb/s = 3.2768 TB/s.
// Each test writes its own copy: tests run in parallel processes.
std::filesystem::path write_test_chip(const std::string& scratch) {
  const auto dir = test::scratch_dir(scratch);
  std::filesystem::create_directories(dir / "dram");
  std::ofstream(dir / "dram" / "TEST-HBM3.toml") << R"([standard]
name = "TEST-HBM3"
family = "HBM3"
data_rate = "6.4Gb/s"
tCK = "0.3125ns"
[organization]
channels = 8
pseudo_channels = 2
bus_width = 64
bank_groups = 4
banks_per_group = 4
row_size = "1KiB"
burst_length = 8
[timing]
tRCD = "48cycles"
tRP = "48cycles"
tRAS = "96cycles"
tRC = "144cycles"
tCL = "48cycles"
tWL = "16cycles"
tCCD_S = "4cycles"
tCCD_L = "8cycles"
tRRD_S = "8cycles"
tRRD_L = "12cycles"
tFAW = "48cycles"
tWR = "48cycles"
tWTR_S = "8cycles"
tWTR_L = "24cycles"
tRTP = "12cycles"
tRTW = "18cycles"
tRFC = "1120cycles"
tREFI = "12480cycles"
)";
  const auto file = dir / "test-chip.toml";
  std::ofstream(file) << R"([device]
name = "test-chip"
launch_latency = "4us"
[compute]
units = 100
outstanding_requests = 16
request_bytes = "4KiB"
[compute.engines.matrix]
clock = "1GHz"
flops_per_cycle = { fp16 = 20000, fp8 = 40000 }
energy_per_flop = { fp16 = "0.5pJ" }
[compute.engines.vector]
clock = "1GHz"
flops_per_cycle = { fp32 = 2000 }
[memory.l2]
scope = "device"
capacity = "32MiB"
bytes_per_cycle = 8000
clock = "1GHz"
latency = "200cycles"
[dram]
standard = "TEST-HBM3"
stacks = 4
capacity = "64GiB"
latency = "500ns"
[power]
tdp = "700W"
static = "100W"
[interconnect]
links = 4
link_bandwidth = "50GB/s"
)";
  return file;
}

}  // namespace

TEST_CASE("device figures from a hardware file") {
  const auto hardware = load_hardware(write_test_chip("device_roof_figures"));
  const auto device = make_device_roof(hardware);
  CHECK(peak_flops_per_s(device, DataType::fp16, "", device.nominal_clock_hz) == doctest::Approx(2e15));
  CHECK(peak_flops_per_s(device, DataType::fp32, "", device.nominal_clock_hz) == doctest::Approx(2e14));
  CHECK(peak_flops_per_s(device, DataType::fp64, "", device.nominal_clock_hz) == 0.0);
  REQUIRE(device.levels.size() == 2);
  CHECK(device.levels[0].name == "l2");
  CHECK(device.levels[0].bandwidth_bytes_per_s == doctest::Approx(8e12));
  CHECK(device.levels[1].name == "dram");
  CHECK(device.main_memory == "dram");
  CHECK(device.main_bandwidth_bytes_per_s == doctest::Approx(4 * 8 * 2 * 51.2e9));
  CHECK(device.bytes_in_flight == 100ULL * 16 * 4096);
  CHECK(device.latency_bandwidth_bytes_per_s() == doctest::Approx(100.0 * 16 * 4096 / 500e-9));
  CHECK(device.launch_latency_s == doctest::Approx(4e-6));
  CHECK(device.power_cap_w == doctest::Approx(700));  // the cap defaults to the TDP
  CHECK(device.network_bandwidth_bytes_per_s == doctest::Approx(200e9));
  REQUIRE(device.dram_rows);
  // All-bank refresh: 1 - 1120 / 12480 of the pin rate for hits; tFAW / 4 = 3.75 ns per ACT for misses.
  CHECK(device.dram_rows->all_hit_bytes_per_s ==
        doctest::Approx(device.main_bandwidth_bytes_per_s * (1 - 1120.0 / 12480.0)));
  CHECK(device.dram_rows->all_miss_bytes_per_s == doctest::Approx(64 * 64 / 3.75e-9 * (1 - 1120.0 / 12480.0)));
}

TEST_CASE("ceilings of a GEMM and a stream on the test chip") {
  const auto device = make_device_roof(load_hardware(write_test_chip("device_roof_ceilings")));
  RooflineInput gemm;
  gemm.flops = 2ULL * 8192 * 8192 * 8192;
  const Bytes gemm_bytes = 2ULL * 3 * 8192 * 8192;  // OI = 2730.7 > ridge 610
  gemm.bytes = {{"l2", gemm_bytes}, {"dram", gemm_bytes}};
  const auto g = evaluate_roofline(device, gemm);
  CHECK(g.ceilings.classic.flops_per_s == doctest::Approx(2e15));
  CHECK(g.ceilings.classic.bound_by == "compute:fp16");
  // 2 PFLOP/s x 0.5 pJ = 1000 W > 700 W cap - 100 W static: the cap binds at 600 W / 0.5 pJ = 1.2 PFLOP/s (no DVFS
  // states besides the nominal one, no memory energies given).
  CHECK(g.binding == Variant::power);
  CHECK(g.bound_by == "power");
  CHECK(g.ceilings.power.flops_per_s == doctest::Approx(600 / 0.5e-12));

  RooflineInput stream;
  stream.flops = 1ULL << 28;
  stream.bytes = {{"l2", 3ULL << 29}, {"dram", 3ULL << 29}};  // fp16 c = a + b: 1 FLOP per 6 B
  const auto s = evaluate_roofline(device, stream);
  CHECK(s.ceilings.classic.flops_per_s == doctest::Approx(device.main_bandwidth_bytes_per_s / 6));
  // All-row-hit DRAM after refresh is below the pins: the DRAM-aware ceiling binds.
  CHECK(s.binding == Variant::dram);
  CHECK(s.bound_by == "dram-rows");
  CHECK(s.ceilings.dram.flops_per_s == doctest::Approx(device.dram_rows->all_hit_bytes_per_s / 6));
}
