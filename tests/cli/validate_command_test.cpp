// `roofsim validate` on the bundled files and with --set overrides (DESIGN.md section 6).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string quoted_files(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  std::string args;
  for (const auto& file : files) args += " '" + file + "'";
  return args;
}

}  // namespace

TEST_CASE("every bundled device file validates") {
  const auto result = test::run_roofsim("validate" + quoted_files(test::source_dir() / "configs"));
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  for (const char* name : {"H100-SXM5.toml: ok (hardware)", "SRAM-LPU.toml: ok (hardware)"}) {
    CHECK(result.out.find(name) != std::string::npos);
  }
}

TEST_CASE("every bundled DRAM standard file validates") {
  const auto dir = test::source_dir() / "configs" / "dram";
  REQUIRE(std::filesystem::exists(dir));
  const auto result = test::run_roofsim("validate" + quoted_files(dir));
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 0);
}

TEST_CASE("--set on nested keys, repeated, is applied before checking") {
  const auto file = test::config_path("SRAM-LPU.toml").string();
  const auto result =
      test::run_roofsim("validate '" + file + "' --set memory.sram.capacity=110MiB --set power.cap=450W");
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 0);
}

TEST_CASE("--set reaches validation: an override that breaks a cross-check is reported") {
  // 100 KB is not a whole number of 320-byte lines.
  const auto file = test::config_path("SRAM-LPU.toml").string();
  const auto result = test::run_roofsim("validate --set memory.sram.capacity=100KB '" + file + "'");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("memory.sram.line_size") != std::string::npos);
  CHECK(result.err.find("100000 B") != std::string::npos);
}

TEST_CASE("--set on an unknown key is exit 2 naming the key") {
  const auto file = test::config_path("SRAM-LPU.toml").string();
  const auto result = test::run_roofsim("validate '" + file + "' --set memory.sram.capacityy=16MiB");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("--set memory.sram.capacityy=16MiB") != std::string::npos);
  CHECK(result.err.find("'memory.sram.capacityy'") != std::string::npos);
}

TEST_CASE("--set without '=' is exit 2") {
  const auto result =
      test::run_roofsim("validate '" + test::config_path("SRAM-LPU.toml").string() + "' --set power.cap");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("KEY=VALUE") != std::string::npos);
}

TEST_CASE("--set with a wrong unit names the --set, not a file line") {
  const auto result =
      test::run_roofsim("validate '" + test::config_path("SRAM-LPU.toml").string() + "' --set power.cap=450GHz");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("--set power.cap=450GHz") != std::string::npos);
  CHECK(result.err.find("'power.cap'") != std::string::npos);
}

TEST_CASE("list --keys documents every key the bundled device files use") {
  const auto listing = test::run_roofsim("list --keys");
  REQUIRE(listing.exit_code == 0);
  // Every dotted key of every bundled file, with named segments generalised as the registry writes them.
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "configs")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".toml") continue;
    std::ifstream in(entry.path());
    std::string line;
    std::string table;
    while (std::getline(in, line)) {
      const auto first = line.find_first_not_of(' ');
      if (first == std::string::npos || line[first] == '#') continue;
      if (line[first] == '[') {
        const bool array = line.compare(first, 2, "[[") == 0;
        const auto open = first + (array ? 2 : 1);
        table = line.substr(open, line.find(']', open) - open);
        continue;
      }
      const auto equals = line.find('=');
      if (equals == std::string::npos) continue;
      std::string key = line.substr(first, equals - first);
      key.erase(key.find_last_not_of(' ') + 1);
      std::string path = table + "." + key;
      // Named segments: memory.<name>, compute.engines.<name>, dtype keys.
      std::vector<std::string> segments;
      std::size_t start = 0;
      while (true) {
        const auto dot = path.find('.', start);
        segments.push_back(path.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      if (segments[0] == "memory" && segments.size() > 1) segments[1] = "<name>";
      if (segments[0] == "area" && segments.size() > 2 && segments[1] == "memory") segments[2] = "<name>";
      if (segments[0] == "compute" && segments.size() > 2 && segments[1] == "engines") segments[2] = "<name>";
      if (segments[0] == "power" && segments.size() > 1 && segments[1] == "dvfs") segments[1] = "dvfs.[]";
      const auto last = segments.back();
      const bool dtype_key = segments.size() >= 2 && (segments[segments.size() - 2] == "peak_flops" ||
                                                      segments[segments.size() - 2] == "flops_per_cycle" ||
                                                      segments[segments.size() - 2] == "energy_per_flop");
      if (dtype_key) segments.back() = "<dtype>";
      std::string generic;
      for (const auto& segment : segments) generic += (generic.empty() ? "" : ".") + segment;
      INFO(entry.path().filename().string() << ": " << path << " as " << generic);
      CHECK(listing.out.find("\n" + generic + " ") != std::string::npos);
    }
  }
}

TEST_CASE("--set workload.KEY applies to the workload files being validated") {
  const auto file = test::workload_path("llama2_7b_decode.toml").string();
  const auto fine = test::run_roofsim("validate '" + file + "' --set workload.params.batch=8");
  INFO("stderr: " << fine.err);
  CHECK(fine.exit_code == 0);
  // A zero batch makes the embedding's row count zero: the override reached the workload's checks.
  const auto broken = test::run_roofsim("validate '" + file + "' --set workload.params.batch=0");
  CHECK(broken.exit_code == 2);
  CHECK(broken.err.find("llama2_7b_decode.toml:") != std::string::npos);
}

TEST_CASE("--set that no validated file takes is exit 2 rather than silently ignored") {
  const auto hardware_only = test::run_roofsim("validate '" + test::config_path("H100-SXM5.toml").string() +
                                               "' --set workload.params.batch=8");
  CHECK(hardware_only.exit_code == 2);
  CHECK(hardware_only.err.find("--set workload.params.batch=8") != std::string::npos);
  const auto workload_only =
      test::run_roofsim("validate '" + test::workload_path("gemm.toml").string() + "' --set power.cap=450W");
  CHECK(workload_only.exit_code == 2);
  CHECK(workload_only.err.find("--set power.cap=450W") != std::string::npos);
}
