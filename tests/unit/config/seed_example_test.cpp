// The seed's worked example as a synthetic device: 108 units x 128 FP32 FLOPs/cycle x 1.41 GHz = 19.49 TFLOP/s;
// 4096 bits x 3.2 Gb/s = 1.6384 TB/s; ridge = 19.49 / 1.6384 = 11.9 FLOP/B. Also the --set overrides of DESIGN.md
// section 6 applied through load_hardware, on the same file.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/core/input_error.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// A 3.2 Gb/s HBM-like standard with 8 channels x 2 pseudo-channels x 64 bits = 1024 pins per stack.
constexpr const char* kSeedDram = R"(
[standard]
name = "SEED-HBM-3200"
family = "HBM2e"
source = "synthetic, for the worked example"
data_rate = "3.2Gb/s"
tCK = "0.625ns"

[organization]
channels = 8
pseudo_channels = 2
bus_width = 64
bank_groups = 4
banks_per_group = 4
row_size = "1KiB"
burst_length = 4

[timing]
tRCD = "14ns"
tRP = "14ns"
tRAS = "33ns"
tRC = "48ns"
tCL = "14ns"
tWL = "4cycles"
tCCD_S = "2cycles"
tCCD_L = "4cycles"
tRRD_S = "4cycles"
tRRD_L = "6cycles"
tFAW = "16ns"
tWR = "16ns"
tWTR_S = "4cycles"
tWTR_L = "8cycles"
tRTP = "5ns"
tRTW = "18cycles"
tRFC = "350ns"
tREFI = "3.9us"
)";

constexpr const char* kSeedDevice = R"(
[device]
name = "seed-example"

[compute]
units = 108

[compute.engines.vector]
clock = "1.41GHz"

[compute.engines.vector.flops_per_cycle]
fp32 = 128

[memory.l2]
scope = "device"
capacity = "40MiB"
line_size = "128B"
bytes_per_cycle = 5120
clock = "1.41GHz"
latency = "200cycles"

[dram]
standard = "SEED-HBM-3200"
stacks = 4
capacity = "40GiB"
latency = "400ns"
)";

// Each test case writes its own copy: CTest runs the cases in parallel processes.
std::filesystem::path write_seed_example(const std::string& name) {
  const auto dir = test::scratch_dir("seed-example-" + name);
  std::filesystem::create_directories(dir / "dram");
  std::ofstream(dir / "dram" / "SEED-HBM-3200.toml") << kSeedDram;
  std::ofstream(dir / "seed.toml") << kSeedDevice;
  return dir / "seed.toml";
}

}  // namespace

TEST_CASE("worked example: 108 x 128 x 1.41 GHz, 4096 bits x 3.2 Gb/s, ridge 11.9 FLOP/B") {
  const auto hw = load_hardware(write_seed_example("worked"));
  const double peak_flops_per_s = hw.compute.peak_flops_per_s(DataType::fp32);
  CHECK(peak_flops_per_s == doctest::Approx(108.0 * 128.0 * 1.41e9));
  CHECK(peak_flops_per_s / 1e12 == doctest::Approx(19.49).epsilon(0.0005));

  REQUIRE(hw.dram.has_value());
  CHECK(hw.dram->stacks * hw.dram->standard.channels * hw.dram->standard.pseudo_channels *
            hw.dram->standard.bus_width_bits ==
        4096);
  const double bandwidth_bytes_per_s = hw.dram->peak_bandwidth_bytes_per_s();
  CHECK(bandwidth_bytes_per_s == doctest::Approx(1.6384e12));

  const double ridge_flops_per_byte = peak_flops_per_s / bandwidth_bytes_per_s;
  CHECK(ridge_flops_per_byte == doctest::Approx(11.9).epsilon(0.001));
}

TEST_CASE("--set on a nested key changes the validated value") {
  const auto file = write_seed_example("nested");
  CHECK(load_hardware(file).level("l2")->capacity_bytes == 40ULL * 1024 * 1024);
  const auto hw = load_hardware(file, {{"memory.l2.capacity", "16MiB"}});
  REQUIRE(hw.level("l2") != nullptr);
  CHECK(hw.level("l2")->capacity_bytes == 16ULL * 1024 * 1024);
}

TEST_CASE("--set power.cap=450W sets the cap of a file without a [power] table") {
  const auto file = write_seed_example("cap");
  CHECK(load_hardware(file).power.cap_w == 0.0);
  const auto hw = load_hardware(file, {{"power.cap", "450W"}});
  CHECK(hw.power.cap_w == doctest::Approx(450.0));
}

TEST_CASE("--set of several keys applies each and a later one wins") {
  const auto hw =
      load_hardware(write_seed_example("several"),
                    {{"compute.units", "132"}, {"compute.engines.vector.clock", "1.98GHz"}, {"compute.units", "100"}});
  CHECK(hw.compute.units == 100);
  CHECK(hw.compute.peak_flops_per_s(DataType::fp32) == doctest::Approx(100.0 * 128.0 * 1.98e9));
}

TEST_CASE("--set on an unknown key is an input error naming the key") {
  const auto file = write_seed_example("unknown");
  try {
    (void)load_hardware(file, {{"memory.l2.capacityy", "16MiB"}});
    FAIL("an unknown key must be rejected");
  } catch (const InputError& error) {
    CHECK(error.key() == "memory.l2.capacityy");
    CHECK(std::string(error.what()).find("--set memory.l2.capacityy=16MiB") != std::string::npos);
  }
}

TEST_CASE("--set with a value of the wrong kind is an input error at the --set") {
  try {
    (void)load_hardware(write_seed_example("wrong-kind"), {{"memory.l2.capacity", "16GHz"}});
    FAIL("a frequency is not a capacity");
  } catch (const InputError& error) {
    CHECK(error.key() == "memory.l2.capacity");
    CHECK(error.pos().file == "--set memory.l2.capacity=16GHz");
  }
}
