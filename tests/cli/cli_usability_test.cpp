// The command line as a new user meets it: --version, bundled names everywhere, one validation path for validate,
// --set and run, "did you mean", nccl-tests sizes, --summary and tables that fit 120 columns.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "sim/cli/input_names.h"
#include "sim/core/input_error.h"
#include "tests/cli/sweep_test_files.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// The widest line of the output (the first line of the closing "wrote N files to DIR/" names the test's scratch folder,
// however long; its list of files wraps within the width like any other line).
std::size_t widest_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::size_t widest = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("wrote ", 0) != 0) widest = std::max(widest, line.size());
  }
  return widest;
}

}  // namespace

TEST_CASE("--version prints roofsim and the git describe of the build") {
  const auto result = test::run_roofsim("--version");
  CHECK(result.exit_code == 0);
  CHECK(result.out.rfind("roofsim ", 0) == 0);
  CHECK(result.out.size() > std::string("roofsim \n").size());
}

TEST_CASE("validate takes bundled names as run does: validate H100-SXM5 gemm") {
  const auto result = test::run_roofsim("validate H100-SXM5 gemm 8xH100-NVSwitch HBM3-6400");
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("H100-SXM5: ok (hardware)") != std::string::npos);
  CHECK(result.out.find("gemm: ok (workload)") != std::string::npos);
  CHECK(result.out.find("8xH100-NVSwitch: ok (cluster)") != std::string::npos);
}

TEST_CASE("an unknown bundled name or key says what is close: --hw H100, --set power.capp") {
  const auto hw =
      test::run_roofsim("roofline --hw H100 --workload gemm --out " + test::scratch_dir("did_you_mean_hw").string());
  CHECK(hw.exit_code == 2);
  CHECK(hw.err.find("did you mean H100-SXM5") != std::string::npos);
  const auto workload = test::run_roofsim("validate H100-SXM5 gemn");
  CHECK(workload.exit_code == 2);
  CHECK(workload.err.find("did you mean gemm") != std::string::npos);
  const auto key = test::run_roofsim("validate H100-SXM5 --set power.capp=450W");
  CHECK(key.exit_code == 2);
  CHECK(key.err.find("did you mean power.cap") != std::string::npos);
}

TEST_CASE("validate rejects what run rejects: --set dram.mapping=garbage, and accepts the :xor suffix") {
  const auto bad = test::run_roofsim("validate H100-SXM5 --set dram.mapping=garbage");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("dram.mapping") != std::string::npos);
  const auto run = test::run_roofsim("roofline --hw H100-SXM5 --workload gemm --set dram.mapping=garbage --out " +
                                     test::scratch_dir("mapping_run").string());
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("dram.mapping") != std::string::npos);
  const auto good = test::run_roofsim("validate H100-SXM5 --set dram.mapping=RoBaBgCoCh:xor");
  INFO(good.err);
  CHECK(good.exit_code == 0);
}

TEST_CASE("list --keys documents the :xor suffix and lists the pipeline_stage template") {
  const auto result = test::run_roofsim("list --keys");
  CHECK(result.exit_code == 0);
  CHECK(result.out.find(":xor") != std::string::npos);
  CHECK(result.out.find("prefix X") == std::string::npos);
  CHECK(result.out.find("pipeline_stage") != std::string::npos);
}

TEST_CASE("collective sizes: a bare G is GiB as in nccl-tests, GB stays decimal") {
  CHECK(cli::collective_size_bytes("-e", "8G") == 8ULL << 30);
  CHECK(cli::collective_size_bytes("-e", "8g") == 8ULL << 30);
  CHECK(cli::collective_size_bytes("-b", "64K") == 64ULL << 10);
  CHECK(cli::collective_size_bytes("-b", "1M") == 1ULL << 20);
  CHECK(cli::collective_size_bytes("--max", "8GB") == 8000000000ULL);
  CHECK(cli::collective_size_bytes("--max", "8GiB") == 8ULL << 30);
  CHECK(cli::collective_size_bytes("--min", "8") == 8);
  CHECK_THROWS_AS((void)cli::collective_size_bytes("-b", "0"), InputError);
  CHECK_THROWS_AS((void)cli::collective_size_bytes("-b", "G"), InputError);
  CHECK_THROWS_AS((void)cli::collective_size_bytes("-b", "lots"), InputError);
}

TEST_CASE("collective takes nccl-tests' -b -e -f: 1K to 4K by 2 gives three rows") {
  const auto result = test::run_roofsim("collective --hw 8xH100-NVSwitch --op allreduce -b 1K -e 4K -f 2");
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("1024 ") != std::string::npos);
  CHECK(result.out.find("2048 ") != std::string::npos);
  CHECK(result.out.find("4096 ") != std::string::npos);
}

TEST_CASE("run prints tables within 120 columns by default, --wide prints every column, --summary one line per op") {
  const auto dir = test::scratch_dir("table_width");
  const auto narrow =
      test::run_roofsim("roofline --hw H100-SXM5 --workload transformer_prefill_small --out " + (dir / "a").string());
  REQUIRE(narrow.exit_code == 0);
  CHECK(widest_line(narrow.out) <= 120);
  const auto wide = test::run_roofsim("roofline --hw H100-SXM5 --workload transformer_prefill_small --wide --out " +
                                      (dir / "b").string());
  REQUIRE(wide.exit_code == 0);
  CHECK(wide.out.find("hierarchical") != std::string::npos);
  CHECK(widest_line(wide.out) > 120);
  const auto summary = test::run_roofsim("run --hw H100-SXM5 --workload gemm --summary --out " + (dir / "c").string());
  INFO(summary.err);
  REQUIRE(summary.exit_code == 0);
  // A title line, then one line per op of the four GEMMs, then the files written.
  std::istringstream lines(summary.out);
  std::string line;
  int op_lines = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("gemm_", 0) == 0 || line.rfind("gemv_", 0) == 0) ++op_lines;
  }
  CHECK(op_lines == 4);
  CHECK(widest_line(summary.out) <= 120);
}

TEST_CASE(
    "every command's console output fits 120 columns by default: the default scenario, a cluster run, "
    "roofline, collective and sweep") {
  const auto dir = test::scratch_dir("console_width");
  const auto check = [](const std::string& name, const test::CommandResult& result) {
    INFO(name << ": " << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(widest_line(result.out) <= 120);
    CHECK(widest_line(result.err) <= 120);
  };
  check("default", test::run_roofsim(""));
  check("cluster",
        test::run_roofsim("run --hw 8xH100-NVSwitch --workload tp_decode --out " + (dir / "cluster").string()));
  check("roofline",
        test::run_roofsim("roofline --hw H100-SXM5 --workload llama2_7b_decode --out " + (dir / "roofline").string()));
  check("collective", test::run_roofsim("collective --hw 4x8xH100-NDR --op allreduce -b 8 -e 1M --out " +
                                        (dir / "collective").string()));
  const auto sweep_file = test::write_file(dir / "grid.toml", test::grid_sweep_text("[16]"));
  check("sweep", test::run_roofsim("sweep " + test::quoted(sweep_file) + " --out " + test::quoted(dir / "sweep")));
}

TEST_CASE("a collective sweep that takes over 2 s prints progress by sizes done, weighed by their bytes") {
  // 50 sizes from 1 MiB to 8 GiB over 64 ranks: several seconds of simulation, the largest sizes the longest.
  const auto result = test::run_roofsim("collective --hw 8x8xH100-NDR -b 1M -e 8G -f 1.2");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.find("progress: ") != std::string::npos);
  CHECK(result.err.find("/50 ops done, simulated ") != std::string::npos);
  CHECK(widest_line(result.err) <= 120);
}
