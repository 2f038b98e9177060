// `roofsim ert`: the Empirical Roofline Toolkit's sweep on the simulated device, checked against closed forms of the
// model: compute peaks where no memory binds, the DRAM pin bandwidth of the simple channel model, the order of the
// per-level ceilings where each level bounds its band, the write-through bound, and the outputs' contract.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

nlohmann::json run_ert(const std::string& name, const std::string& args, test::CommandResult* result_out = nullptr) {
  const auto out = test::scratch_dir(name);
  const auto result = test::run_roofsim("ert --hw " + quoted(test::config_path("H100-SXM5.toml")) + " --quick --out " +
                                        quoted(out) + " --set dram.model=simple " + args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  if (result_out != nullptr) *result_out = result;
  for (const char* file : {"ert.json", "ert_points.csv", "ert_ceilings.csv", "ert.svg"}) {
    CHECK(std::filesystem::exists(out / file));
  }
  return nlohmann::json::parse(test::read_file(out / "ert.json"));
}

std::map<std::string, nlohmann::json> by_name(const nlohmann::json& list) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& entry : list) out[entry["name"].get<std::string>()] = entry;
  return out;
}

}  // namespace

TEST_CASE("ert on H100 with the simple DRAM: compute peaks, the DRAM line, the write-through bound") {
  // The power cap lifted, so that no throttling stands between the engines and their peaks.
  test::CommandResult result;
  const auto report = run_ert("ert_h100_simple", "--set power.cap=100kW", &result);
  CHECK(result.out.find("measured_GB/s") != std::string::npos);
  CHECK(result.out.find("analytic_GFLOP/s") != std::string::npos);
  CHECK(report["complete"] == true);
  const auto memory = by_name(report["ceilings"]["memory"]);
  const auto compute = by_name(report["ceilings"]["compute"]);

  // Where no memory binds (intensity at least 8 x the ridge against DRAM), each engine's highest-intensity point runs
  // at its analytic peak, units x FLOPs per cycle x clock (for the matrix engine's bf16: 132 x 4096 x 1.83 GHz).
  CHECK(compute.at("matrix bf16")["analytic_flops_per_s"].get<double>() ==
        doctest::Approx(132.0 * 4096 * 1.83e9).epsilon(1e-9));
  std::map<std::string, nlohmann::json> highest;
  for (const auto& point : report["points"]) {
    const std::string key = point["engine"].get<std::string>() + " " + point["dtype"].get<std::string>();
    if (!highest.count(key) || point["intensity_flops_per_byte"] > highest[key]["intensity_flops_per_byte"]) {
      highest[key] = point;
    }
  }
  for (const char* type : {"matrix bf16", "matrix fp16", "matrix fp8", "matrix tf32", "matrix_fp64 fp64"}) {
    INFO(type);
    REQUIRE(highest.count(type) == 1);
    const double peak = compute.at(type)["analytic_flops_per_s"].get<double>();
    CHECK(highest[type]["flops_per_s"].get<double>() == doctest::Approx(peak).epsilon(0.02));
    CHECK(compute.at(type)["measured_over_analytic"].get<double>() <= 1.0 + 1e-9);
  }

  // The DRAM band at the lowest intensity: the simple model's channels are FIFOs at the pin rate, and the units keep
  // 132 x 32 x 4 KiB = 17.3 MB in flight, far above Little's law's 3.35 TB/s x 500 ns = 1.7 MB, so the channels
  // never idle in the steady state and the kernel's loads and stores together reach the pin bandwidth
  // (5 stacks x 1024 bits x 5.234 Gb/s = 3.35 TB/s). What remains is the imbalance of the channels at the ends of the
  // tiles' slices: within 1 %, never above.
  const double pin = 5 * 1024 * 5.234e9 / 8;
  CHECK(memory.at("dram")["analytic_bytes_per_s"].get<double>() == doctest::Approx(pin).epsilon(1e-6));
  bool found = false;
  for (const auto& point : report["points"]) {
    if (point["band"] != "dram" || point["flops_per_element"] != 1) continue;
    found = true;
    CHECK(point["bytes_per_s"].get<double>() == doctest::Approx(pin).epsilon(0.01));
    CHECK(point["bytes_per_s"].get<double>() <= pin * (1 + 1e-9));
  }
  CHECK(found);

  // Stores write through to DRAM: half of every band's bytes cross the DRAM, so no band exceeds 2 x the pin rate.
  // The smem band (a scratchpad that keeps nothing) is served by the L2 like the l2 band: the same ceiling, but for
  // the runs' fill and drain (about the DRAM latency, 0.5 us, of the write acknowledgements at the end of a run of at
  // least 4 passes of 6.8 us over the smem band's 21.7 MiB): within 2 %.
  for (const char* level : {"smem", "l2", "dram"}) {
    INFO(level);
    CHECK(memory.at(level)["measured_bytes_per_s"].get<double>() <= 2 * pin * (1 + 1e-9));
  }
  CHECK(memory.at("smem")["measured_bytes_per_s"].get<double>() ==
        doctest::Approx(memory.at("l2")["measured_bytes_per_s"].get<double>()).epsilon(0.02));
  CHECK(memory.at("l2")["measured_bytes_per_s"].get<double>() >=
        memory.at("dram")["measured_bytes_per_s"].get<double>());
}

TEST_CASE("ert: the per-level ceilings are ordered where each level bounds its band") {
  // smem as a per-SM cache (so that it keeps its band's data), an L2 of 96 MiB at 2560 B/clk (5.07 TB/s) and the
  // 3.35 TB/s DRAM. Stores go through every level, so closed forms bound each band: smem min(B_smem, 2 B_l2,
  // 2 B_dram) = 6.70 TB/s; l2 min(B_l2, 2 B_dram) = 5.07 TB/s; dram B_dram = 3.35 TB/s.
  const auto report = run_ert("ert_ordered",
                              "--set power.cap=100kW --set memory.smem.kind=cache --set memory.l2.capacity=96MiB "
                              "--set memory.l2.bytes_per_cycle=2560");
  const auto memory = by_name(report["ceilings"]["memory"]);
  const double smem = memory.at("smem")["measured_bytes_per_s"].get<double>();
  const double l2 = memory.at("l2")["measured_bytes_per_s"].get<double>();
  const double dram = memory.at("dram")["measured_bytes_per_s"].get<double>();
  CHECK(smem >= l2);
  CHECK(l2 >= dram);
  const double pin = 5 * 1024 * 5.234e9 / 8;
  CHECK(l2 == doctest::Approx(2560 * 1.98e9).epsilon(0.02));
  CHECK(l2 <= 2560 * 1.98e9 * (1 + 1e-9));
  CHECK(smem <= 2 * pin * (1 + 1e-9));
  CHECK(smem >= 1.9 * pin);
}

TEST_CASE("ert: ert.svg, the CSVs and byte-identical outputs of two runs") {
  const auto first = test::scratch_dir("ert_repeat_a");
  const auto second = test::scratch_dir("ert_repeat_b");
  const std::string args = " --quick --set dram.model=simple --set compute.units=8 --max-working-set 64MiB";
  for (const auto& out : {first, second}) {
    const auto result =
        test::run_roofsim("ert --hw " + quoted(test::config_path("H100-SXM5.toml")) + args + " --out " + quoted(out));
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
  }
  for (const char* file : {"ert.json", "ert_points.csv", "ert_ceilings.csv", "ert.svg"}) {
    INFO(file);
    CHECK(test::read_file(first / file) == test::read_file(second / file));
  }
  const auto svg = test::read_file(first / "ert.svg");
  CHECK(svg.find("class=\"plot-area\"") != std::string::npos);
  CHECK(svg.find("class=\"measured-ceiling\"") != std::string::npos);
  CHECK(svg.find("class=\"analytic-ceiling\"") != std::string::npos);
  CHECK(svg.find("class=\"point\"") != std::string::npos);
  const auto ceilings = test::read_file(first / "ert_ceilings.csv");
  CHECK(ceilings.rfind("kind,name,engine,dtype,unit,measured,analytic,measured_over_analytic,best_point\n", 0) == 0);
  CHECK(ceilings.find("memory,dram,,,GB/s,") != std::string::npos);
  CHECK(ceilings.find("compute,matrix bf16,matrix,bf16,GFLOP/s,") != std::string::npos);
}

TEST_CASE("ert: a bad hardware file or option is exit 2") {
  const auto out = test::scratch_dir("ert_bad");
  auto result = test::run_roofsim("ert --hw " + quoted(out / "missing.toml") + " --out " + quoted(out));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("missing.toml") != std::string::npos);

  const auto bad = test::write_file(out / "bad.toml", "[device]\nname = \"bad\"\n[compute]\nunits = \"many\"\n");
  result = test::run_roofsim("ert --hw " + quoted(bad) + " --out " + quoted(out));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("bad.toml") != std::string::npos);

  result = test::run_roofsim("ert --hw " + quoted(test::config_path("H100-SXM5.toml")) +
                             " --max-working-set lots --out " + quoted(out));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("--max-working-set") != std::string::npos);

  result = test::run_roofsim("ert --hw " + quoted(test::config_path("H100-SXM5.toml")) +
                             " --set workload.params.batch=2 --out " + quoted(out));
  CHECK(result.exit_code == 2);
}
