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
