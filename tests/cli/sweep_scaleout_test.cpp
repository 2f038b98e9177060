// Scale-out of a sweep on an existing engine: --shard K/N slices cover every point once, `sweep merge` of the shards
// gives the same sweep.csv as one machine, and `--list` piped through GNU parallel gives it too.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include <sys/wait.h>

#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

namespace {

std::size_t count_lines(const std::string& text) {
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

std::string single_machine_csv(const std::filesystem::path& dir, const std::filesystem::path& file) {
  const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "one"));
  REQUIRE(result.exit_code == 0);
  return test::read_file(dir / "one" / "sweep.csv");
}

}  // namespace

TEST_CASE("shards 0/3 1/3 2/3 run every point exactly once and merged they give the single-machine sweep.csv") {
  const auto dir = test::scratch_dir("sweep-shards");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto expected = single_machine_csv(dir, file);
  std::string merge_args = "sweep merge";
  for (int shard = 0; shard < 3; ++shard) {
    const auto out = dir / ("shard" + std::to_string(shard));
    const auto result = test::run_roofsim("sweep " + test::quoted(file) + " --shard " + std::to_string(shard) +
                                          "/3 --jobs 1 --out " + test::quoted(out));
    INFO("stderr: " << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK_FALSE(std::filesystem::exists(out / "sweep.csv"));
    merge_args += " " + test::quoted(out);
  }
  for (int point = 0; point < 9; ++point) {
    int owners = 0;
    for (int shard = 0; shard < 3; ++shard) {
      const auto folder = dir / ("shard" + std::to_string(shard)) / "points" / ("p000" + std::to_string(point));
      owners += std::filesystem::exists(folder / "done") ? 1 : 0;
    }
    CHECK(owners == 1);
  }
  const auto merged = test::run_roofsim(merge_args + " --out " + test::quoted(dir / "merged"));
  INFO("stderr: " << merged.err);
  REQUIRE(merged.exit_code == 0);
  CHECK(test::read_file(dir / "merged" / "sweep.csv") == expected);
  for (const char* chart : {"sweep.svg", "sweep_roofline.svg"}) {
    CHECK(test::read_file(dir / "merged" / chart) == test::read_file(dir / "one" / chart));
  }
}

TEST_CASE("merging an incomplete set of shards reports the missing points and exits 1") {
  const auto dir = test::scratch_dir("sweep-missing");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  REQUIRE(
      test::run_roofsim("sweep " + test::quoted(file) + " --shard 0/2 --out " + test::quoted(dir / "s0")).exit_code ==
      0);
  const auto merged = test::run_roofsim("sweep merge " + test::quoted(dir / "s0"));
  CHECK(merged.exit_code == 1);
  CHECK(merged.err.find("4 points failed or missing") != std::string::npos);
  const auto csv = test::read_file(dir / "s0" / "sweep.csv");
  CHECK(csv.find(",missing,") != std::string::npos);
}

TEST_CASE(
    "--list prints one command per point of the shard and GNU parallel runs them: merged they equal one machine") {
  const auto dir = test::scratch_dir("sweep-parallel");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto expected = single_machine_csv(dir, file);
  const auto listed = test::run_roofsim("sweep " + test::quoted(file) + " --list --out " + test::quoted(dir / "par"));
  REQUIRE(listed.exit_code == 0);
  CHECK(count_lines(listed.out) == 9);
  CHECK(listed.out.find(" sweep ") != std::string::npos);
  const auto slice =
      test::run_roofsim("sweep " + test::quoted(file) + " --list --shard 1/4 --out " + test::quoted(dir / "par"));
  // Slice 1 of 4 holds the points with index % 4 == 1: 1 and 5 of 0..8.
  CHECK(count_lines(slice.out) == 2);
  CHECK(slice.out.find("--point 1 ") != std::string::npos);
  CHECK(slice.out.find("--point 5 ") != std::string::npos);

  REQUIRE(std::system("command -v parallel >/dev/null 2>&1") == 0);  // Debian package `parallel`
  const auto list_file = test::write_file(dir / "commands.txt", listed.out);
  const std::string command =
      "parallel --will-cite -j 2 < " + test::quoted(list_file) + " > " + test::quoted(dir / "parallel.log") + " 2>&1";
  const int status = std::system(command.c_str());
  INFO("parallel log: " << test::read_file(dir / "parallel.log"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const auto merged = test::run_roofsim("sweep merge " + test::quoted(dir / "par"));
  INFO("stderr: " << merged.err);
  REQUIRE(merged.exit_code == 0);
  CHECK(test::read_file(dir / "par" / "sweep.csv") == expected);
}

TEST_CASE("the sbatch script run as array tasks 0..2 of 3 and merged gives the single-machine sweep.csv") {
  const auto dir = test::scratch_dir("sweep-slurm");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto expected = single_machine_csv(dir, file);
  const auto script = test::source_dir() / "scripts" / "roofsim-sweep.sbatch";
  for (int task = 0; task < 3; ++task) {
    // What Slurm sets for `sbatch --array=0-2 --cpus-per-task=2`.
    const std::string command = "SLURM_SUBMIT_DIR=" + test::quoted(dir) +
                                " SLURM_ARRAY_TASK_ID=" + std::to_string(task) +
                                " SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=2" +
                                " SLURM_CPUS_PER_TASK=2 ROOFSIM=" + test::quoted(test::roofsim_binary()) + " bash " +
                                test::quoted(script) + " " + test::quoted(file) + " slurm-out > " +
                                test::quoted(dir / ("task" + std::to_string(task) + ".log")) + " 2>&1";
    const int status = std::system(command.c_str());
    INFO("log: " << test::read_file(dir / ("task" + std::to_string(task) + ".log")));
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
  }
  const auto merged = test::run_roofsim("sweep merge " + test::quoted(dir / "slurm-out"));
  INFO("stderr: " << merged.err);
  REQUIRE(merged.exit_code == 0);
  CHECK(test::read_file(dir / "slurm-out" / "sweep.csv") == expected);
}
