// `roofsim dram` end to end: trace parsing and its errors, patterns, every bundled standard, the JSON it writes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// One line of roofsim's trace format.
struct TraceLine {
  double time_ns = 0;
  std::string kind, address;
  std::uint64_t bytes = 0;
};

std::vector<TraceLine> read_trace(const std::filesystem::path& path) {
  std::vector<TraceLine> lines;
  std::ifstream in(path);
  for (std::string text; std::getline(in, text);) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    TraceLine line;
    fields >> line.time_ns >> line.kind >> line.address >> line.bytes;
    lines.push_back(line);
  }
  return lines;
}

TEST_CASE("run --dram-trace writes every DRAM request of a workload, and --convert round trips it through DRAMSys") {
  // STREAM on 2^16 fp32 elements (256 KiB arrays, in L2): the controller serves one RD per burst of the reads and
  // one WR per burst of the writes; the trace must hold exactly those bytes.
  const auto dir = test::scratch_dir("dram_trace_of_run");
  const auto hw = test::config_path("H100-SXM5.toml").string();
  const auto trace = dir / "run_trace.txt";
  const auto run = test::run_roofsim("run --hw " + hw + " --workload " + test::workload_path("stream.toml").string() +
                                     " --set workload.params.elements=65536 --set dram.model=detailed --dram-trace " +
                                     trace.string() + " --quiet --out " + (dir / "run").string());
  REQUIRE(run.exit_code == 0);
  const auto report = read_json(dir / "run" / "report.json");
  const auto lines = read_trace(trace);
  REQUIRE(!lines.empty());
  std::uint64_t read_bytes = 0, write_bytes = 0, reads = 0;
  double last_ns = 0;
  for (const auto& line : lines) {
    CHECK(line.time_ns >= last_ns);
    last_ns = line.time_ns;
    (line.kind == "R" ? read_bytes : write_bytes) += line.bytes;
    reads += line.kind == "R" ? 1 : 0;
  }
  std::uint64_t rd = 0, wr = 0;
  for (const auto& op : report["ops"]) {
    rd += op["dram"]["commands"]["rd"].get<std::uint64_t>();
    wr += op["dram"]["commands"]["wr"].get<std::uint64_t>();
  }
  const std::uint64_t burst_bytes = 32;  // HBM3: 32-bit pseudo-channel x BL8
  CHECK(read_bytes == rd * burst_bytes);
  CHECK(write_bytes == wr * burst_bytes);
  CHECK(read_bytes == 65536 * 4);  // copy reads `a` from DRAM once; the other inputs are still in L2
  CHECK(last_ns * 1e-9 <= report["total"]["sim_time_s"].get<double>());

  // roofsim dram reads it back: the same requests.
  REQUIRE(test::run_roofsim("dram --hw " + hw + " " + trace.string() + " --quiet --out " + (dir / "a").string())
              .exit_code == 0);
  const auto replayed = read_json(dir / "a" / "dram.json");
  CHECK(replayed["read_requests"].get<std::uint64_t>() == reads);
  CHECK(replayed["bytes_read"].get<std::uint64_t>() == read_bytes);
  CHECK(replayed["bytes_written"].get<std::uint64_t>() == write_bytes);

  // To DRAMSys' STL (times in cycles of tCK) and back: the same kinds, addresses and sizes, line by line, at the
  // same times to within one tCK.
  REQUIRE(test::run_roofsim("dram --hw " + hw + " " + trace.string() + " --convert dramsys --quiet --out " +
                            (dir / "stl").string())
              .exit_code == 0);
  REQUIRE(test::run_roofsim("dram --hw " + hw + " " + (dir / "stl" / "dram_trace.stl").string() +
                            " --format auto --convert roofsim --quiet --out " + (dir / "back").string())
              .exit_code == 0);
  const auto back = read_trace(dir / "back" / "dram_trace.txt");
  REQUIRE(back.size() == lines.size());
  const double tck_ns = 4.0 / 5.234;  // the H100 file's HBM3 at 5.234 Gb/s per pin, 4 data beats per CK
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(back[i].kind == lines[i].kind);
    CHECK(back[i].address == lines[i].address);
    CHECK(back[i].bytes == lines[i].bytes);
    CHECK(std::abs(back[i].time_ns - lines[i].time_ns) < tck_ns);
  }
}

}  // namespace
}  // namespace roofsim
