// Every bundled device file against its own citations: each datasheet peak must follow from units x FLOPs/cycle x
// clock, and each DRAM bandwidth from stacks x pins x data rate (STYLE.md: peaks are derived in a test, so a wrong SM
// count, clock or a 2:4-sparse figure cannot hide). The cited figures are read straight from the TOML here; the model
// never uses them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "sim/config/hardware_params.h"
#include "sim/config/quantity.h"
#include "sim/core/data_type.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

constexpr double kTolerance = 0.01;  // within 1 % of the cited figure

std::vector<std::filesystem::path> bundled_device_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "configs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Cited {
  bool derived = false;
  std::map<DataType, double> peak_flops_per_s;
  std::optional<double> dram_bandwidth_bytes_per_s;
};

Cited read_cited(const std::filesystem::path& file) {
  const auto table = toml::parse_file(file.string());
  Cited cited;
  cited.derived = table["device"]["derived"].value_or(false);
  if (const auto* peaks = table["device"]["peak_flops"].as_table()) {
    for (auto&& [key, value] : *peaks) {
      const auto type = parse_data_type(key.str());
      REQUIRE_MESSAGE(type.has_value(), file.filename().string() << ": device.peak_flops." << key.str());
      cited.peak_flops_per_s[*type] = value.value<double>().value() * 1e12;  // TFLOP/s in the file
    }
  }
  if (const auto bandwidth = table["device"]["peak_dram_bandwidth"].value<std::string>()) {
    const auto parsed = parse_quantity(*bandwidth, QuantityKind::bandwidth);
    REQUIRE(parsed.has_value());
    cited.dram_bandwidth_bytes_per_s = parsed->value;
  }
  return cited;
}

double relative_error(double derived, double cited) {
  return std::abs(derived - cited) / cited;
}

}  // namespace

TEST_CASE("the hardware library holds every bundled device") {
  std::set<std::string> names;
  for (const auto& file : bundled_device_files()) names.insert(file.stem().string());
  for (const char* expected :
       {"V100-SXM2", "A100-SXM4-80GB", "H100-SXM5", "H200", "B200", "MI300X", "TPU-v4", "SRAM-LPU"}) {
    CHECK_MESSAGE(names.count(expected) == 1, "configs/" << expected << ".toml is missing");
  }
}

TEST_CASE("every cited dense peak equals units x flops_per_cycle x clock within 1%") {
  for (const auto& file : bundled_device_files()) {
    const auto hw = load_hardware(file);
    const auto cited = read_cited(file);
    INFO(file.filename().string());
    // A datasheet device must cite its peaks; a design point cites the values it derives (device.derived).
    CHECK_MESSAGE(cited.peak_flops_per_s.size() >= 2, "cite at least two dense peaks in [device.peak_flops]");
    for (const auto& [type, cited_flops_per_s] : cited.peak_flops_per_s) {
      const auto* engine = hw.compute.engine_for(type);
      REQUIRE_MESSAGE(engine != nullptr, "no engine computes " << to_string(type));
      const double derived = hw.compute.peak_flops_per_s(type);
      INFO(to_string(type) << ": " << hw.compute.units << " units x " << engine->flops_per_cycle.at(type)
                           << " FLOP/cycle x " << engine->clock_hz / 1e9 << " GHz (" << engine->name
                           << ") = " << derived / 1e12 << " TFLOP/s, cited " << cited_flops_per_s / 1e12);
      CHECK(relative_error(derived, cited_flops_per_s) <= kTolerance);
    }
  }
}

TEST_CASE("every cited DRAM bandwidth equals stacks x 1024 pins x data rate within 1%") {
  for (const auto& file : bundled_device_files()) {
    const auto hw = load_hardware(file);
    const auto cited = read_cited(file);
    INFO(file.filename().string());
    if (!hw.dram) {
      CHECK_FALSE(cited.dram_bandwidth_bytes_per_s.has_value());
      continue;
    }
    REQUIRE_MESSAGE(cited.dram_bandwidth_bytes_per_s.has_value(), "a device with DRAM cites peak_dram_bandwidth");
    const auto& dram = *hw.dram;
    // Pins counted independently of the standard's channel organisation: every HBM generation has a 1024-bit stack.
    const double pins = static_cast<double>(dram.stacks) * 1024.0;
    const double from_pins = pins * dram.standard.data_rate_bits_per_s / 8.0;
    INFO(dram.standard.name << ": " << dram.stacks << " stacks x 1024 bits x "
                            << dram.standard.data_rate_bits_per_s / 1e9 << " Gb/s = " << from_pins / 1e12
                            << " TB/s, cited " << *cited.dram_bandwidth_bytes_per_s / 1e12);
    CHECK(dram.standard.family.rfind("HBM", 0) == 0);
    CHECK(relative_error(dram.peak_bandwidth_bytes_per_s(), from_pins) <= 1e-9);
    CHECK(relative_error(dram.peak_bandwidth_bytes_per_s(), *cited.dram_bandwidth_bytes_per_s) <= kTolerance);
  }
}

TEST_CASE("every device describes what the six rooflines need") {
  for (const auto& file : bundled_device_files()) {
    const auto hw = load_hardware(file);
    INFO(file.filename().string());
    CHECK(hw.compute.units > 0);
    CHECK(hw.compute.outstanding_requests > 0);
    CHECK(hw.compute.request_bytes > 0);
    REQUIRE_FALSE(hw.levels.empty());
    for (const auto& level : hw.levels) {
      INFO(level.name);
      CHECK(level.bandwidth_bytes_per_s > 0);
      CHECK(level.latency_s > 0);
      CHECK(level.energy_per_byte_j > 0);
    }
    for (const auto& engine : hw.compute.engines) {
      for (const auto& [type, flops] : engine.flops_per_cycle) {
        INFO(engine.name << " " << to_string(type));
        CHECK(flops > 0);
        CHECK(engine.energy_per_flop_j.count(type) == 1);
      }
    }
    CHECK(hw.power.tdp_w > hw.power.static_w);
    CHECK(hw.power.static_w > 0);
    CHECK(hw.power.dvfs.size() >= 2);
    CHECK(hw.power.dvfs.back().clock_hz == doctest::Approx(hw.power.nominal_clock_hz));
    CHECK(hw.interconnect.bandwidth_bytes_per_s() > 0);
    if (hw.dram) {
      CHECK(hw.dram->latency_s > 0);
      CHECK(hw.dram->capacity_bytes > 0);
      CHECK(hw.dram->energy_per_byte_j > 0);
      // Re-timed to the device's pin rate, the row cycle still covers an activation and a precharge.
      const auto& timing = hw.dram->standard.timing;
      CHECK(timing.tRC >= timing.tRAS + timing.tRP);
    }
  }
}

TEST_CASE("the SRAM-centric design keeps its weights on chip and is marked as derived") {
  const auto file = test::config_path("SRAM-LPU.toml");
  const auto hw = load_hardware(file);
  CHECK(read_cited(file).derived);
  CHECK_FALSE(hw.dram.has_value());
  REQUIRE(hw.level("sram") != nullptr);
  CHECK(hw.level("sram")->capacity_bytes >= 200ULL * 1024 * 1024);
  CHECK(hw.level("sram")->bandwidth_bytes_per_s == doctest::Approx(80e12).epsilon(0.01));  // 80 TB/s on die
}

TEST_CASE("H100 runs its tensor-core peaks at 1.83 GHz and its vector and FP64 peaks at 1.98 GHz") {
  const auto hw = load_hardware(test::config_path("H100-SXM5.toml"));
  REQUIRE(hw.compute.engine("matrix") != nullptr);
  REQUIRE(hw.compute.engine("vector") != nullptr);
  CHECK(hw.compute.engine("matrix")->clock_hz == doctest::Approx(1.83e9));
  CHECK(hw.compute.engine("vector")->clock_hz == doctest::Approx(1.98e9));
  CHECK(hw.compute.engine_for(DataType::fp16)->name == "matrix");
  CHECK(hw.compute.engine_for(DataType::fp64)->clock_hz == doctest::Approx(1.98e9));
  CHECK(hw.power.nominal_clock_hz == doctest::Approx(1.98e9));
}

namespace {

// GA100's V / V_boost at the locked clocks of Kernel Tuner's A100 power curve, as the A100 file derives it (leakage of
// 20 W at the floor): flat up to the 1005 MHz ridge, linear between the measured clocks above it.
double ga100_voltage_ratio(double clock_mhz) {
  const std::vector<std::pair<double, double>> points = {{1005, 0.7489}, {1140, 0.7946}, {1275, 0.8832}, {1410, 1}};
  if (clock_mhz <= points.front().first) return points.front().second;
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (clock_mhz <= points[i].first) {
      const auto [f0, r0] = points[i - 1];
      const auto [f1, r1] = points[i];
      return r0 + (r1 - r0) * (clock_mhz - f0) / (f1 - f0);
    }
  }
  return 1;
}

}  // namespace

TEST_CASE("the A100 file's V-f shape follows from the measured power curve it cites") {
  // Kernel Tuner's A100 PCIe: board power (W) of an FP32-FMA kernel at locked graphics clocks (MHz).
  const std::vector<double> clocks = {210, 330, 465, 600, 735, 870, 1005, 1140, 1275, 1410};
  const std::vector<double> watts = {42.002, 47.026, 52.724, 58.598, 64.991, 71.457, 78.121, 91.995, 116.619, 153.408};
  // A least-squares line through the clocks up to 870 MHz: P = p0 + c f at the floor voltage.
  double mean_f = 0, mean_p = 0;
  for (std::size_t i = 0; i < 6; ++i) mean_f += clocks[i] / 6, mean_p += watts[i] / 6;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    sxy += (clocks[i] - mean_f) * (watts[i] - mean_p);
    sxx += (clocks[i] - mean_f) * (clocks[i] - mean_f);
  }
  const double c = sxy / sxx, p0 = mean_p - c * mean_f;
  CHECK(c == doctest::Approx(0.0445).epsilon(0.01));
  CHECK(p0 == doctest::Approx(32.3).epsilon(0.01));
  for (std::size_t i = 0; i < 6; ++i) CHECK(std::abs(watts[i] - p0 - c * clocks[i]) < 0.5);
  // Above the ridge: P = p0 - L + L v + c f v^2 with L = 20 W, solved for v = V / V_floor.
  const double leakage = 20;
  std::vector<double> v;
  for (std::size_t i = 6; i < clocks.size(); ++i) {
    const double a = c * clocks[i], b = leakage, k = p0 - leakage - watts[i];
    v.push_back((-b + std::sqrt(b * b - 4 * a * k)) / (2 * a));
  }
  const double boost = v.back();
  CHECK(boost == doctest::Approx(1.348).epsilon(0.001));
  for (std::size_t i = 0; i < v.size(); ++i) {
    CHECK(v[i] / boost == doctest::Approx(ga100_voltage_ratio(clocks[i + 6])).epsilon(0.001));
  }
}

TEST_CASE("the NVIDIA files' DVFS states are 15 MHz apart, with GA100's V-f shape at the same fraction of the boost") {
  struct Table {
    const char* file;
    double boost_mhz, lowest_mhz;
  };
  for (const Table& t :
       {Table{"A100-SXM4-80GB.toml", 1410, 705}, Table{"H100-SXM5.toml", 1980, 990}, Table{"H200.toml", 1980, 990},
        Table{"V100-SXM2.toml", 1530, 765}, Table{"B200.toml", 1980, 990}}) {
    INFO(t.file);
    const auto hw = load_hardware(test::config_path(t.file));
    const auto& states = hw.power.dvfs;
    REQUIRE(states.size() == static_cast<std::size_t>((t.boost_mhz - t.lowest_mhz) / 15) + 1);
    for (std::size_t i = 0; i < states.size(); ++i) {
      const double mhz = t.lowest_mhz + 15.0 * static_cast<double>(i);
      CHECK(states[i].clock_hz == doctest::Approx(mhz * 1e6));
      const double expected_v = hw.power.nominal_voltage_v * ga100_voltage_ratio(mhz * 1410 / t.boost_mhz);
      CHECK(std::abs(states[i].voltage_v - expected_v) <= 0.0005 + 1e-12);
      if (i > 0) CHECK(states[i].voltage_v >= states[i - 1].voltage_v);
    }
    CHECK(states.back().voltage_v == doctest::Approx(hw.power.nominal_voltage_v));
  }
}
