// `roofsim roofline`: the table, report.json, ops.csv and roofline.svg of a bundled workload on bundled hardware,
// checked against closed forms and the report contract (DESIGN.md sections 5 and 6).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/config/data_paths.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

test::CommandResult roofline(const std::string& hw, const std::string& workload, const std::filesystem::path& out,
                             const std::string& extra = "") {
  return test::run_roofsim("roofline --hw " + hw + " --workload " + workload + " --out " + quoted(out) + " " + extra);
}

}  // namespace

TEST_CASE("gemm on H200: the table and three files with the closed-form GEMM intensities") {
  const auto out = test::scratch_dir("roofline_gemm_h200");
  const auto result = roofline(quoted(test::config_path("H200.toml")), quoted(test::workload_path("gemm.toml")), out);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("gemm_8192x8192x8192") != std::string::npos);
  CHECK(result.out.find("TFLOP/s") != std::string::npos);
  CHECK(result.out.find("bound_by") != std::string::npos);
  for (const char* file : {"report.json", "ops.csv", "roofline.svg"}) CHECK(std::filesystem::exists(out / file));

  const auto report = nlohmann::json::parse(test::read_file(out / "report.json"));
  CHECK(report["hardware"]["name"] == "H200");
  CHECK(report["workload"]["name"] == "gemm");
  CHECK(report["total"]["sim_time_s"].is_null());
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : report["ops"]) ops[op["name"].get<std::string>()] = op;
  REQUIRE(ops.count("gemm_8192x8192x8192") == 1);
  REQUIRE(ops.count("gemm_8192x128x8192") == 1);
  // FLOPs = 2MNK; fp16 compulsory OI = 2MNK / (2(MK + KN + MN)).
  CHECK(ops["gemm_8192x8192x8192"]["useful_flops"].get<std::uint64_t>() == 2ULL * 8192 * 8192 * 8192);
  CHECK(ops["gemm_8192x8192x8192"]["oi"]["dram"].get<double>() == doctest::Approx(2730.67).epsilon(1e-4));
  CHECK(ops["gemm_8192x128x8192"]["oi"]["dram"].get<double>() == doctest::Approx(124.12).epsilon(1e-4));
  for (const auto& op : report["ops"]) {
    const double classic = op["ceilings"]["classic"].get<double>();
    double lowest = classic;
    for (const char* variant : {"classic", "hierarchical", "dram", "latency", "power", "comm"}) {
      const auto& value = op["ceilings"][variant];
      REQUIRE(value.is_number());
      CHECK(std::isfinite(value.get<double>()));
      CHECK(value.get<double>() <= classic * (1 + 1e-12));
      lowest = std::min(lowest, value.get<double>());
    }
    CHECK(op["ceilings"][op["binding"].get<std::string>()].get<double>() == doctest::Approx(lowest));
    CHECK(op["sim_time_s"].is_null());
    CHECK(op["achieved_flops_per_s"].is_null());
  }
  // The device's roofs travel with the report: the fp16 ridge is P / B_dram.
  const auto& device = report["device"];
  CHECK(device["main_memory"] == "dram");
  const double dram_bw = device["bandwidth_bytes_per_s"]["dram"].get<double>();
  bool found_fp16 = false;
  for (std::size_t i = 0; i < device["compute"].size(); ++i) {
    const auto& line = device["compute"][i];
    for (const auto& dtype : line["dtypes"]) {
      if (dtype == "fp16" && line["engine"] == "matrix") {
        found_fp16 = true;
        CHECK(device["ridges"][i]["oi"].get<double>() ==
              doctest::Approx(line["peak_flops_per_s"].get<double>() / dram_bw));
      }
    }
  }
  CHECK(found_fp16);
  // The square GEMM sits far above the ridge: the compute roof binds classically.
  CHECK(ops["gemm_8192x8192x8192"]["ceiling_bound_by"]["classic"] == "compute:fp16");
}

TEST_CASE("bundled names work like paths and the outputs are byte-identical on a second run") {
  const auto first = test::scratch_dir("roofline_repeat_1");
  const auto second = test::scratch_dir("roofline_repeat_2");
  REQUIRE(roofline("H200", "gpt3_175b_block_prefill", first).exit_code == 0);
  REQUIRE(roofline("H200", "gpt3_175b_block_prefill", second).exit_code == 0);
  // report.json records the command line, whose --out differs; everything else is the same bytes.
  const auto without_command_line = [](std::string text) {
    const auto begin = text.find("\"command_line\"");
    if (begin != std::string::npos) text.erase(begin, text.find('\n', begin) - begin);
    return text;
  };
  for (const char* file : {"report.json", "ops.csv", "roofline.svg"}) {
    CHECK_MESSAGE(
        without_command_line(test::read_file(first / file)) == without_command_line(test::read_file(second / file)),
        file);
    CHECK(!test::read_file(first / file).empty());
  }
}

TEST_CASE("--set lowers the power cap and the power-aware ceiling of a compute-bound GEMM follows") {
  const auto base_dir = test::scratch_dir("roofline_cap_base");
  const auto capped_dir = test::scratch_dir("roofline_cap_low");
  REQUIRE(roofline("H200", "gemm", base_dir).exit_code == 0);
  const auto capped = roofline("H200", "gemm", capped_dir, "--set power.cap=250W");
  INFO(capped.err);
  REQUIRE(capped.exit_code == 0);
  const auto base = nlohmann::json::parse(test::read_file(base_dir / "report.json"));
  const auto low = nlohmann::json::parse(test::read_file(capped_dir / "report.json"));
  const double base_power = base["ops"][0]["ceilings"]["power"].get<double>();
  const double low_power = low["ops"][0]["ceilings"]["power"].get<double>();
  CHECK(low_power < base_power);
  CHECK(low["ops"][0]["binding"] == "power");
  CHECK(low["ops"][0]["bound_by"] == "power");
}

TEST_CASE("--set workload.params changes the shapes") {
  const auto out = test::scratch_dir("roofline_params");
  const auto result = roofline("H200", "gemm", out, "--set workload.params.size=4096");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto report = nlohmann::json::parse(test::read_file(out / "report.json"));
  CHECK(report["ops"][0]["useful_flops"].get<std::uint64_t>() == 2ULL * 4096 * 4096 * 4096);
}

TEST_CASE("bad input exits with 2 and names the problem") {
  const auto out = test::scratch_dir("roofline_bad");
  const auto unknown_key = roofline("H200", "gemm", out, "--set power.capp=300W");
  CHECK(unknown_key.exit_code == 2);
  CHECK(unknown_key.err.find("power.capp") != std::string::npos);
  const auto missing = roofline("no-such-device", "gemm", out);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no-such-device") != std::string::npos);
  const auto no_workload = test::run_roofsim("roofline --hw H200");
  CHECK(no_workload.exit_code == 2);
  CHECK(no_workload.err.find("--workload") != std::string::npos);
}

TEST_CASE("every bundled config with every bundled workload: a table or an input error but never a crash") {
  int successes = 0;
  for (const auto& config : bundled_files("configs")) {
    int config_successes = 0;
    for (const auto& workload : bundled_files("workloads")) {
      const auto out = test::scratch_dir("roofline_all");
      const auto result = roofline(quoted(config), quoted(workload), out);
      INFO(config.filename().string() << " x " << workload.filename().string() << ": " << result.err);
      CHECK((result.exit_code == 0 || result.exit_code == 2));
      if (result.exit_code == 0) {
        ++config_successes;
        const auto svg = test::read_file(out / "roofline.svg");
        CHECK(svg.find("class=\"plot-area\"") != std::string::npos);
        CHECK(nlohmann::json::parse(test::read_file(out / "report.json"))["ops"].size() > 0);
      } else {
        CHECK(result.err.find("error") != std::string::npos);
      }
    }
    INFO(config.filename().string());
    CHECK(config_successes > 0);
    successes += config_successes;
  }
  CHECK(successes > 0);
}
