// `roofsim dram` end to end: trace parsing and its errors, patterns, every bundled standard, the JSON it writes.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/data_paths.h"
#include "tests/support/test_paths.h"

namespace roofsim {
namespace {

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST_CASE("roofsim dram reads a trace: times, R/W, hex addresses with or without 0x, optional sizes, comments") {
  const auto dir = test::scratch_dir("dram_trace_ok");
  {
    std::ofstream trace(dir / "trace.txt");
    trace << "# time_ns kind address [bytes]\n\n"
          << "0 R 0x0\n"
          << "0 R 40 64\n"
          << "5.5 W 0x1000 128   # a write of two bursts' worth\n"
          << "1000 r 0XFFC0\n";
  }
  const auto result = test::run_roofsim("dram --hw HBM2-2000 --channels 2 " + (dir / "trace.txt").string() + " --out " +
                                        (dir / "out").string());
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("bandwidth") != std::string::npos);
  const auto json = read_json(dir / "out" / "dram.json");
  CHECK(json["read_requests"] == 3);
  CHECK(json["write_requests"] == 1);
  CHECK(json["bytes_written"] == 128);
  CHECK(json["channels"] == 2);
  for (const char* key : {"bandwidth_bytes_per_s", "bandwidth_percent_of_peak", "row_hit_rate", "read_latency_s",
                          "acts_per_bank", "refresh_time_share", "energy_j", "energy_pj_per_bit"}) {
    CHECK(json.contains(key));
  }
  CHECK(json["read_latency_s"]["max"].get<double>() >= json["read_latency_s"]["p50"].get<double>());
  CHECK(json["acts_per_bank"].size() == 2);
}

TEST_CASE("a bad trace line is an input error naming its line") {
  const auto dir = test::scratch_dir("dram_trace_bad");
  {
    std::ofstream trace(dir / "trace.txt");
    trace << "0 R 0x0\n# fine\n10 X 0x40\n";
  }
  const auto result =
      test::run_roofsim("dram --hw HBM2-2000 " + (dir / "trace.txt").string() + " --out " + (dir / "out").string());
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("trace.txt:3") != std::string::npos);
  CHECK(result.err.find("10 X 0x40") != std::string::npos);
}

TEST_CASE("decreasing trace times and a missing --hw file are input errors") {
  const auto dir = test::scratch_dir("dram_trace_order");
  {
    std::ofstream trace(dir / "trace.txt");
    trace << "10 R 0x0\n5 R 0x40\n";
  }
  CHECK(test::run_roofsim("dram --hw HBM2-2000 " + (dir / "trace.txt").string() + " --out " + dir.string()).exit_code ==
        2);
  CHECK(test::run_roofsim("dram --hw no-such-dram --pattern stream --out " + dir.string()).exit_code == 2);
  CHECK(test::run_roofsim("dram --hw HBM2-2000 --pattern stream --mapping RoRoCo --out " + dir.string()).exit_code ==
        2);
}

TEST_CASE("every bundled DRAM standard answers a stream, a random and a strided pattern with reads and writes") {
  const auto dir = test::scratch_dir("dram_standards");
  for (const auto& file : bundled_files("configs/dram")) {
    for (const char* pattern : {"stream --mapping RoBaCoBgCh", "random --read-ratio 0.7", "strided --stride 4KiB"}) {
      CAPTURE(file.string());
      CAPTURE(pattern);
      const auto result = test::run_roofsim("dram --hw " + file.string() + " --bytes 256KiB --pattern " + pattern +
                                            " --quiet --out " + dir.string());
      CHECK(result.exit_code == 0);
      const auto json = read_json(dir / "dram.json");
      CHECK(json["bandwidth_percent_of_peak"].get<double>() > 0.0);
      CHECK(json["bandwidth_percent_of_peak"].get<double>() <= 100.0);
    }
  }
}

TEST_CASE("--hw takes a device file: its stacks, pin rate, mapping and page policy") {
  const auto dir = test::scratch_dir("dram_device_file");
  {
    std::ofstream device(dir / "device.toml");
    device << "[device]\nname = \"two-stack test device\"\n\n"
           << "[compute]\nunits = 4\n\n[compute.engines.matrix]\nclock = \"1GHz\"\n\n"
           << "[compute.engines.matrix.flops_per_cycle]\nfp16 = 1024\n\n"
           << "[dram]\nstandard = \"HBM2e-3200\"\ndata_rate = \"3.0Gb/s\"\nstacks = 2\ncapacity = \"32GiB\"\n"
           << "latency = \"400ns\"\nmapping = \"RoBaCoBgCh\"\npage_policy = \"adaptive\"\n";
  }
  const auto result = test::run_roofsim("dram --hw " + (dir / "device.toml").string() +
                                        " --pattern stream --bytes 1MiB --quiet --out " + dir.string());
  REQUIRE(result.exit_code == 0);
  const auto json = read_json(dir / "dram.json");
  CHECK(json["channels"] == 32);  // 2 stacks x 8 channels x 2 pseudo-channels
  CHECK(json["mapping"] == "RoBaCoBgCh");
  CHECK(json["page_policy"] == "adaptive");
  // 2 stacks x 1024 pins x 3.0 Gb/s
  CHECK(json["peak_bandwidth_bytes_per_s"].get<double>() == doctest::Approx(2 * 1024 * 3.0e9 / 8));
}

}  // namespace
}  // namespace roofsim
