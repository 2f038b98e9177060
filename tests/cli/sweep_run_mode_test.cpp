// Sweeps in their default mode, `run`: every point a SystemC simulation in its own process. The totals follow from
// the points' reports, and one more tile than a full wave costs a second wave (the sawtooth of the bundled study).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

namespace {

std::vector<std::vector<std::string>> total_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream parts(line);
    std::string field;
    while (std::getline(parts, field, ',')) fields.push_back(field);
    if (fields.size() > 2 && fields[2] == "ok") rows.push_back(fields);
  }
  return rows;
}

}  // namespace

TEST_CASE("a run sweep: a full wave of 264 tiles reaches more FLOP/s than 272 tiles in two waves") {
  const auto dir = test::scratch_dir("sweep-run-waves");
  // The bundled sawtooth's GEMM 1024 x N x 4096 with 128 x 256 tiles: N = 8448 gives 8 x 33 = 264 tiles (132 SMs x 2
  // resident, one full wave), N = 8704 gives 272 (a second wave of 8 tiles).
  const auto file = test::write_file(dir / "waves.toml", R"([sweep]
name = "waves"
hardware = "H100-SXM5"
workload = ")" + (test::source_dir() / "sweeps" / "workloads" / "gemm_waves.toml").string() +
                                                             R"("
metrics = ["useful_flops", "sim_time_s", "achieved_flops_per_s"]

[[axis]]
key = "workload.params.n"
values = [8448, 8704]
)");
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "out"));
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  const auto rows = total_rows(test::read_file(dir / "out" / "sweep_totals.csv"));
  REQUIRE(rows.size() == 2);
  std::vector<double> achieved;
  for (const auto& row : rows) {
    // point, n, status, useful_flops, sim_time_s, achieved_flops_per_s
    REQUIRE(row.size() >= 6);
    const double flops = std::stod(row[3]), time_s = std::stod(row[4]);
    CHECK(time_s > 0);
    // The total's achieved FLOP/s is the point's FLOPs over its simulated time.
    CHECK(std::stod(row[5]) == doctest::Approx(flops / time_s).epsilon(1e-12));
    achieved.push_back(std::stod(row[5]));
  }
  CHECK(std::stod(rows[0][3]) == 2.0 * 1024 * 8448 * 4096);
  CHECK(achieved[1] < achieved[0]);
}
