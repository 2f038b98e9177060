// `roofsim run --set power.cap=...` just works: the power table gains throttled and per-clock columns when
// the cap binds, report.json carries each op's power figures, and energy.svg plots the simulated FLOP/J.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

test::CommandResult run(const std::filesystem::path& out, const std::string& cap) {
  return test::run_roofsim("run --hw H100-SXM5 --workload transformer_prefill_small --out '" + out.string() +
                           "' --set power.cap=" + cap);
}

}  // namespace

TEST_CASE("power: run with a binding cap prints throttled and per-clock columns and reports each op's power") {
  const auto out = test::scratch_dir("power_run_capped");
  const auto result = run(out, "200W");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("under a 200 W cap") != std::string::npos);
  CHECK(result.out.find("throttled us") != std::string::npos);
  CHECK(result.out.find("us@") != std::string::npos);
  CHECK(result.out.find("clock GHz") != std::string::npos);
  CHECK(result.out.find("lost us") != std::string::npos);
  const auto report = nlohmann::json::parse(test::read_file(out / "report.json"));
  double throttled = 0;
  for (const auto& op : report["ops"]) {
    REQUIRE(op.contains("power"));
    const auto& power = op["power"];
    const double energy = power["energy_j"].get<double>();
    CHECK(test::within(power["dynamic_j"].get<double>() + power["static_j"].get<double>(), energy, 1e-9));
    CHECK(test::within(power["joules_per_flop"].get<double>() * op["executed_flops"].get<double>(), energy, 1e-9));
    // The op's life is its time at the clocks it ran at.
    double at_clocks = 0;
    for (const auto& entry : power["time_at_clock_s"]) at_clocks += entry["time_s"].get<double>();
    CHECK(test::within(at_clocks, op["sim_time_s"].get<double>(), 1e-6));
    throttled += power["throttled_s"].get<double>();
    // The time lost to throttling is the busy time at each clock x (1 - f / 1.98 GHz), per unit (132 SMs); each entry
    // carries its clock in Hz.
    double lost = 0;
    for (const auto& entry : power["unit_busy_at_clock_s"]) {
      lost += entry["time_s"].get<double>() * (1 - entry["clock_hz"].get<double>() / 1.98e9) / 132;
    }
    CHECK(std::abs(power["throttling_loss_s"].get<double>() - lost) <=
          1e-6 * lost + 1e-9 * op["sim_time_s"].get<double>());
    if (power["busy_clock_hz"].get<double>() > 0) {
      CHECK(power["busy_clock_hz"].get<double>() >= 0.99e9 * (1 - 1e-9));
      CHECK(power["busy_clock_hz"].get<double>() <= 1.98e9 * (1 + 1e-9));
    }
  }
  CHECK(throttled > 0);
  // Run totals: the cap, the energy, and the time at each clock adding up to the run.
  const auto& run_power = report["power"];
  CHECK(run_power["cap_w"].get<double>() == 200.0);
  double at_clocks = 0;
  for (const auto& entry : run_power["time_at_clock_s"]) at_clocks += entry["time_s"].get<double>();
  CHECK(test::within(at_clocks, report["total"]["sim_time_s"].get<double>(), 1e-6));
  CHECK(run_power["clock_changes"].get<int>() > 0);
  // energy.svg puts each op at its useful FLOPs over its simulated energy.
  const std::string svg = test::read_file(out / "energy.svg");
  const std::regex point("data-op=\"([^\"]+)\" data-oi=\"[^\"]+\" data-flops-per-j=\"([^\"]+)\"");
  std::size_t checked = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), point); it != std::sregex_iterator(); ++it) {
    for (const auto& op : report["ops"]) {
      if (op["name"] != (*it)[1].str()) continue;
      CHECK(test::within(std::stod((*it)[2]), op["useful_flops"].get<double>() / op["power"]["energy_j"].get<double>(),
                         1e-6));
      ++checked;
    }
  }
  CHECK(checked >= 5);
}

TEST_CASE("power: run without a binding cap shows no clock columns and never changes the clock") {
  const auto out = test::scratch_dir("power_run_uncapped");
  const auto result = run(out, "700W");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("0 clock changes") != std::string::npos);
  CHECK(result.out.find("throttled us") == std::string::npos);
}
