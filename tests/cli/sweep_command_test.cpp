// `roofsim sweep FILE`: a process per point with the point's overrides, sweep.csv in point order, resume, and a
// failing point that is recorded while the others finish.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

}  // namespace

TEST_CASE("a 3x3 grid runs 9 points - each with its overrides: FLOPs match 2 m n k of the point's shape") {
  const auto dir = test::scratch_dir("sweep-grid");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "out"));
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  const auto lines = lines_of(test::read_file(dir / "out" / "sweep.csv"));
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "point,size,skinny,op,status,useful_flops,bytes.dram,attainable_flops_per_s,bound_by,error");
  // 9 points x 4 ops; the totals are sweep_totals.csv's, a row per point.
  REQUIRE(lines.size() == 1 + 9 * 4);
  const auto totals = lines_of(test::read_file(dir / "out" / "sweep_totals.csv"));
  REQUIRE(totals.size() == 1 + 9);
  CHECK(totals[0] == "point,size,skinny,status,useful_flops,bytes.dram,attainable_flops_per_s,bound_by,error");
  const long long sizes[] = {256, 512, 1024};
  const long long skinnies[] = {16, 32, 64};
  for (std::size_t point = 0; point < 9; ++point) {
    const long long size = sizes[point / 3], skinny = skinnies[point % 3];
    // gemm_8192x128x8192 of the bundled workload is size x skinny x size.
    const auto fields = fields_of(lines[1 + point * 4 + 1]);
    REQUIRE(fields.size() == 10);
    CHECK(fields[0] == std::to_string(point));
    CHECK(fields[1] == std::to_string(size));
    CHECK(fields[2] == std::to_string(skinny));
    CHECK(fields[3] == "gemm_8192x128x8192");
    CHECK(fields[4] == "ok");
    CHECK(fields[5] == std::to_string(2 * size * skinny * size));
    // fp16 compulsory bytes: 2 (MK + KN + MN).
    CHECK(fields[6] == std::to_string(2 * (size * size + size * skinny + size * skinny)));
    const auto total = fields_of(totals[1 + point]);
    CHECK(total[0] == std::to_string(point));
    CHECK(total[3] == "ok");
    // Four ops: size^3, size skinny size, (size/2)^3 and 1 x size x size GEMMs.
    const long long flops =
        2 * (size * size * size + size * skinny * size + (size / 2) * (size / 2) * (size / 2) + size * size);
    CHECK(total[4] == std::to_string(flops));
  }
  CHECK(std::filesystem::exists(dir / "out" / "sweep.svg"));
  CHECK(std::filesystem::exists(dir / "out" / "sweep_roofline.svg"));
  CHECK(std::filesystem::exists(dir / "out" / "points" / "p0008" / "done"));
}

TEST_CASE("re-running resumes: finished points are skipped - a point without its done marker runs again") {
  const auto dir = test::scratch_dir("sweep-resume");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const std::string args = "sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "out");
  REQUIRE(test::run_roofsim(args).exit_code == 0);
  const auto first_csv = test::read_file(dir / "out" / "sweep.csv");
  const auto report = dir / "out" / "points" / "p0004" / "report.json";
  const auto stamp = std::filesystem::last_write_time(report);
  std::filesystem::remove(dir / "out" / "points" / "p0007" / "done");
  std::filesystem::remove(dir / "out" / "points" / "p0007" / "report.json");

  const auto again = test::run_roofsim(args);
  INFO("stderr: " << again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("8 of 9 points already done") != std::string::npos);
  CHECK(std::filesystem::last_write_time(report) == stamp);
  CHECK(std::filesystem::exists(dir / "out" / "points" / "p0007" / "report.json"));
  CHECK(test::read_file(dir / "out" / "sweep.csv") == first_csv);

  const auto third = test::run_roofsim(args);
  CHECK(third.err.find("9 of 9 points already done") != std::string::npos);
}

TEST_CASE("a different sweep into the same folder is refused") {
  const auto dir = test::scratch_dir("sweep-other");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto other = test::write_file(dir / "other.toml", test::grid_sweep_text("[16, 32, 96]"));
  REQUIRE(test::run_roofsim("sweep " + test::quoted(file) + " --out " + test::quoted(dir / "out")).exit_code == 0);
  const auto result = test::run_roofsim("sweep " + test::quoted(other) + " --out " + test::quoted(dir / "out"));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("different sweep") != std::string::npos);
}

TEST_CASE("a failing point is recorded with its error - the other points finish - and the sweep exits 1") {
  const auto dir = test::scratch_dir("sweep-failure");
  // "banana" is no integer: the point's roofline command rejects it (exit 2).
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text("[16, \"banana\", 64]"));
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "out"));
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 1);
  const auto lines = lines_of(test::read_file(dir / "out" / "sweep.csv"));
  // 6 ok points with 4 op rows each, 3 failed points with one row each.
  REQUIRE(lines.size() == 1 + 6 * 4 + 3);
  int failed = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto fields = fields_of(lines[i]);
    if (fields[4] == "failed") {
      ++failed;
      CHECK(fields[2] == "banana");
      CHECK(lines[i].find("exit code 2") != std::string::npos);
      CHECK(lines[i].find("params.skinny") != std::string::npos);
    } else {
      CHECK(fields[4] == "ok");
    }
  }
  CHECK(failed == 3);
  // A row per point in sweep_totals.csv: 6 ok, 3 failed with the error.
  const auto totals = lines_of(test::read_file(dir / "out" / "sweep_totals.csv"));
  REQUIRE(totals.size() == 1 + 9);
  int ok_totals = 0;
  for (std::size_t i = 1; i < totals.size(); ++i) {
    const auto fields = fields_of(totals[i]);
    if (fields[3] == "ok") ++ok_totals;
    if (fields[3] == "failed") CHECK(totals[i].find("exit code 2") != std::string::npos);
  }
  CHECK(ok_totals == 6);
  CHECK(result.err.find("point 1 (") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "out" / "points" / "p0001" / "error.txt"));
}

TEST_CASE("sweep file errors are input errors naming the file and position (exit 2)") {
  const auto dir = test::scratch_dir("sweep-bad");
  const auto file = test::write_file(dir / "bad.toml", test::grid_sweep_text() + "\n[sweep.extra]\n");
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --out " + test::quoted(dir / "out"));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("bad.toml:") != std::string::npos);
}

TEST_CASE("an axis on an unknown --set key is refused before any point runs (exit 2 naming the file and key)") {
  const auto dir = test::scratch_dir("sweep-unknown-key");
  auto text = test::grid_sweep_text();
  text.replace(text.find("workload.params.skinny"), std::string("workload.params.skinny").size(), "memory.l2.capasity");
  const auto file = test::write_file(dir / "typo.toml", text);
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --out " + test::quoted(dir / "out"));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("typo.toml:") != std::string::npos);
  CHECK(result.err.find("memory.l2.capasity: expected a known hardware key") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "points"));
  // --list refuses it too: a job array would otherwise run N failing points.
  CHECK(test::run_roofsim("sweep " + test::quoted(file) + " --list").exit_code == 2);
}

TEST_CASE("--quiet runs the sweep without progress lines, and without it each finished point prints one") {
  const auto dir = test::scratch_dir("sweep-quiet");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto quiet =
      test::run_roofsim("sweep " + test::quoted(file) + " --quiet --jobs 2 --out " + test::quoted(dir / "quiet"));
  INFO("stderr: " << quiet.err);
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.find("points") == std::string::npos);
  const auto loud = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "loud"));
  REQUIRE(loud.exit_code == 0);
  CHECK(lines_of(loud.err).size() >= 9);
  // The results do not depend on the flag.
  CHECK(test::read_file(dir / "quiet" / "sweep.csv") == test::read_file(dir / "loud" / "sweep.csv"));
}
