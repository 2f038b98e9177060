// The sbatch script on a real Slurm: a one-node cluster on localhost (tests/cli/slurm_localhost.sh starts munged,
// slurmctld and slurmd in a scratch folder and always stops them) runs scripts/roofsim-sweep.sbatch as a 3-task array
// and the dependent `sweep merge`, as the README submits them; the merged sweep.csv equals one machine's byte for
// byte. Without the Debian packages slurm-wlm and munge (or without root, which slurmd needs to start jobs) the case
// says it is skipped and passes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include <sys/wait.h>

#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

TEST_CASE(
    "a one-node Slurm on localhost runs the sbatch array and the dependent merge: sweep.csv equals one machine's") {
  const auto dir = test::scratch_dir("sweep-real-slurm");
  const auto file = test::write_file(dir / "grid.toml", test::grid_sweep_text());
  const auto log = dir / "slurm.log";
  const std::string command = "bash " + test::quoted(test::source_dir() / "tests" / "cli" / "slurm_localhost.sh") +
                              " " + test::quoted(dir / "slurm") + " " + test::quoted(test::roofsim_binary()) + " " +
                              test::quoted(test::source_dir() / "scripts" / "roofsim-sweep.sbatch") + " " +
                              test::quoted(file) + " " + test::quoted(dir / "slurm-out") + " > " + test::quoted(log) +
                              " 2>&1";
  const int status = std::system(command.c_str());
  const auto output = test::read_file(log);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    MESSAGE(output);
    return;
  }
  INFO("slurm_localhost.sh: " << output);
  REQUIRE(WEXITSTATUS(status) == 0);
  const auto local = test::run_roofsim("sweep " + test::quoted(file) + " --jobs 2 --out " + test::quoted(dir / "one"));
  REQUIRE(local.exit_code == 0);
  CHECK(test::read_file(dir / "slurm-out" / "sweep.csv") == test::read_file(dir / "one" / "sweep.csv"));
}
