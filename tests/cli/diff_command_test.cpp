// `roofsim diff A B`: a folder against itself changes nothing; two devices running the same workload move times but
// not compulsory bytes; diff.html is written in --out; a folder without report.json is bad input (exit 2). Also:
// report.html is written beside the charts, the same bytes for the same inputs.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

}  // namespace

TEST_CASE("diff: a run against itself, and report.html beside it written the same twice") {
  const auto dir = test::scratch_dir("diff_command_self");
  for (const char* name : {"a", "b"}) {
    const auto run =
        test::run_roofsim("run --hw H100-SXM5 --workload transformer_prefill_small --out " + quoted(dir / name));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("report.html") != std::string::npos);
  }
  const auto page = test::read_file(dir / "a" / "report.html");
  CHECK(page.size() > 10000);
  CHECK(page == test::read_file(dir / "b" / "report.html"));

  const auto diff =
      test::run_roofsim("diff " + quoted(dir / "a") + " " + quoted(dir / "b") + " --out " + quoted(dir / "diff"));
  INFO(diff.err);
  REQUIRE(diff.exit_code == 0);
  CHECK(diff.out.find("(x1); 10 ops in both, 0 with another bound, 0 added, 0 removed") != std::string::npos);
  CHECK(diff.out.find("block.mlp.down") != std::string::npos);
  CHECK(test::read_file(dir / "diff" / "diff.html").find("\"page\":\"diff\"") != std::string::npos);
}

TEST_CASE("diff: two devices, same workload: compulsory bytes equal, so every byte ratio is x1") {
  const auto dir = test::scratch_dir("diff_command_devices");
  const auto workload = test::write_file(dir / "two_gemms.toml", R"([workload]
name = "two_gemms"
description = "a square and a skinny fp16 GEMM"

[[op]]
name = "square"
kind = "gemm"
dtype = "fp16"
m = 4096
n = 4096
k = 4096

[[op]]
name = "skinny"
kind = "gemm"
dtype = "fp16"
m = 4096
n = 128
k = 4096
)");
  for (const char* hw : {"H100-SXM5", "H200"}) {
    const auto run = test::run_roofsim(std::string("roofline --hw ") + hw + " --workload " + quoted(workload) +
                                       " --out " + quoted(dir / hw));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
  }
  const auto diff = test::run_roofsim("diff " + quoted(dir / "H100-SXM5") + " " + quoted(dir / "H200"));
  INFO(diff.err);
  REQUIRE(diff.exit_code == 0);
  CHECK(diff.out.find("two_gemms on H100-SXM5") != std::string::npos);
  CHECK(diff.out.find("two_gemms on H200") != std::string::npos);
  // Roofline results have no simulated time (no time ratio); the workload's compulsory bytes are the same at each
  // level of both devices.
  CHECK(diff.out.find("2 ops in both, 0 with another bound, 0 added, 0 removed") != std::string::npos);
  std::size_t ratios_x1 = 0;
  for (auto at = diff.out.find(" x1\n"); at != std::string::npos; at = diff.out.find(" x1\n", at + 1)) ++ratios_x1;
  for (auto at = diff.out.find(" x1 "); at != std::string::npos; at = diff.out.find(" x1 ", at + 1)) ++ratios_x1;
  CHECK(ratios_x1 == 2 * 3);  // 2 ops x (smem, l2, dram)
  CHECK_FALSE(std::filesystem::exists(dir / "diff.html"));
}

TEST_CASE("diff: a folder without report.json is bad input") {
  const auto dir = test::scratch_dir("diff_command_missing");
  const auto diff = test::run_roofsim("diff " + quoted(dir) + " " + quoted(dir));
  CHECK(diff.exit_code == 2);
  CHECK(diff.err.find("report.json") != std::string::npos);
}
