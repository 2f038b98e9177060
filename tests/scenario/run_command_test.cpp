// `roofsim run` and `roofsim` alone as a user runs them, and the engine on the
// bundled H100 file against the ceilings the roofline functions compute from the measured bytes.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/engine/engine.h"
#include "sim/results/run_report.h"
#include "sim/roofline/roofline.h"
#include "tests/scenario/test_device.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("a run writes its files and reproduces a byte-identical report.json when repeated") {
  const auto first = test::scratch_dir("run-repeat-1");
  const auto second = test::scratch_dir("run-repeat-2");
  const std::string args = "run --hw H100-SXM5 --workload transformer_prefill_small --out ";
  const auto a = test::run_roofsim(args + "'" + first.string() + "'");
  const auto b = test::run_roofsim(args + "'" + second.string() + "'");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  for (const auto* name : {"report.json", "ops.csv", "roofline.svg"}) {
    CHECK(std::filesystem::exists(first / name));
    // report.json records the command line, whose --out differs between the two runs; the rest is the same bytes.
    const auto without_command_line = [](std::string text) {
      const auto begin = text.find("\"command_line\"");
      if (begin != std::string::npos) text.erase(begin, text.find('\n', begin) - begin);
      return text;
    };
    CHECK(without_command_line(test::read_file(first / name)) == without_command_line(test::read_file(second / name)));
  }
  const auto report = nlohmann::json::parse(test::read_file(first / "report.json"));
  REQUIRE(!report["ops"].empty());
  double latest_end = 0;
  for (const auto& op : report["ops"]) {
    CHECK(op["sim_time_s"].is_number());
    CHECK(op["sim_time_s"].get<double>() > 0);
    CHECK(op["achieved_flops_per_s"].is_number());
    CHECK(op["executed_flops"].get<std::uint64_t>() >= op["useful_flops"].get<std::uint64_t>());
    latest_end = std::max(latest_end, op["end_s"].get<double>());
  }
  CHECK(report["total"]["sim_time_s"].get<double>() == latest_end);
}

TEST_CASE("roofsim alone runs the default scenario and prints the table with simulated times") {
  const auto result = test::run_roofsim("");
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("H100-SXM5") != std::string::npos);
  CHECK(result.out.find("achieved") != std::string::npos);
  CHECK(result.out.find("efficiency") != std::string::npos);
}

TEST_CASE("collectives on one device take zero time and are marked not simulated") {
  const auto dir = test::scratch_dir("run-collectives");
  const auto result = test::run_roofsim("run --hw H100-SXM5 --workload collectives --out '" + dir.string() + "'");
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("not simulated: single device") != std::string::npos);
  const auto report = nlohmann::json::parse(test::read_file(dir / "report.json"));
  for (const auto& op : report["ops"]) {
    CHECK(op["simulated"] == false);
    CHECK(op["note"] == "not simulated: single device");
    CHECK(op["sim_time_s"].get<double>() == 0.0);
  }
}

TEST_CASE("a large GEMM on the bundled H100 reaches at least 80% of its binding ceiling") {
  const auto hw = load_hardware(test::config_path("H100-SXM5.toml"));
  test::WorkloadBuilder builder;
  builder.gemm("gemm", 4096, 4096, 4096);
  auto& workload = builder.workload();
  workload.ops[0].dtype = DataType::bf16;
  const auto result = run_workload(hw, workload);
  const auto device = make_device_roof(hw);
  const auto report = make_run_report(workload, hw, device, result);
  const auto& op = report.ops.at(0);
  const double efficiency = run_efficiency(op, device);
  MESSAGE("H100 GEMM 4096^3 bf16: " << *op.achieved_flops_per_s / 1e12 << " TFLOP/s, binding "
                                    << to_string(op.roofline.binding) << " (" << op.roofline.bound_by << ") "
                                    << op.attainable_flops_per_s() / 1e12 << " TFLOP/s, efficiency " << efficiency
                                    << ", " << result.events << " events in " << result.wall_s << " s");
  CHECK(efficiency >= 0.80);
  CHECK(efficiency <= 1.0 + 1e-9);
}
