// Every bundled workload loads against a test device (and against every bundled device file, when present), and
// loading is deterministic. `roofsim validate` and `roofsim list --keys` know the workload file kind.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/graph/workload.h"
#include "tests/unit/graph/graph_test_files.h"

using namespace roofsim;

namespace {

std::vector<std::filesystem::path> toml_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("every bundled workload loads against the test device, deterministically") {
  const auto dir = test::scratch_dir("graph-bundled");
  const auto hardware = load_hardware(test::write_test_hardware(dir));
  const auto workloads = toml_files(test::workload_path(""));
  CHECK(workloads.size() >= 10);
  for (const auto& file : workloads) {
    CAPTURE(file);
    const auto first = load_workload(file, {}, hardware);
    const auto second = load_workload(file, {}, hardware);
    CHECK(!first.ops.empty());
    CHECK(first.total_useful_flops() == second.total_useful_flops());
    REQUIRE(first.tensors.size() == second.tensors.size());
    for (std::size_t i = 0; i < first.tensors.size(); ++i) CHECK(first.tensors[i].address == second.tensors[i].address);
    for (std::size_t i = 0; i < first.ops.size(); ++i) {
      for (const auto before : first.ops[i].after) CHECK(before < i);
    }
  }
}

TEST_CASE("every bundled workload loads against every bundled device that has its data types") {
  const auto devices = toml_files(test::config_path(""));
  for (const auto& device : devices) {
    CAPTURE(device);
    const auto hardware = load_hardware(device);
    for (const auto& file : toml_files(test::workload_path(""))) {
      CAPTURE(file);
      try {
        (void)load_workload(file, {}, hardware);
      } catch (const InputError& error) {
        // The one accepted failure: the device really lacks the data type (V100 has no bf16), and says so.
        const std::string message = error.what();
        CAPTURE(message);
        bool lacks_named_type = false;
        for (const DataType type : kAllDataTypes) {
          const std::string phrase = "has no engine for " + std::string(to_string(type));
          if (message.find(phrase) != std::string::npos) {
            lacks_named_type = hardware.compute.engine_for(type) == nullptr;
          }
        }
        CHECK(lacks_named_type);
      }
    }
  }
}

TEST_CASE("bundled workloads: the issue's GEMM OIs and the GPT-3 block's size") {
  const auto dir = test::scratch_dir("graph-bundled-figures");
  const auto hardware = load_hardware(test::write_test_hardware(dir));
  const auto gemm = load_workload(test::workload_path("gemm.toml"), {}, hardware);
  const auto oi = [](const Op& op) {
    return static_cast<double>(op.useful_flops) / static_cast<double>(op.compulsory_bytes());
  };
  CHECK(oi(*gemm.find_op("gemm_8192x8192x8192")) == doctest::Approx(2730.7).epsilon(1e-4));
  CHECK(oi(*gemm.find_op("gemm_8192x128x8192")) == doctest::Approx(124.1).epsilon(1e-3));
  const auto gpt3 = load_workload(test::workload_path("gpt3_175b_block_prefill.toml"), {}, hardware);
  CHECK(gpt3.find_op("block.qkv")->shape.n == 3 * 12288);
  CHECK(gpt3.find_op("block.attn")->shape.seq_q == 2048);
}

TEST_CASE("roofsim validate checks workload files: ok, or exit 2 naming the op") {
  const auto good = test::run_roofsim("validate '" + test::workload_path("gemm.toml").string() + "'");
  CHECK(good.exit_code == 0);
  CHECK(good.out.find("ok (workload)") != std::string::npos);
  const auto dir = test::scratch_dir("graph-validate");
  const auto cyclic = test::write_file(dir, "cyclic.toml", R"(
[workload]
name = "cyclic"
[[op]]
name = "ping"
kind = "elementwise"
elements = 4
inputs = ["pong.out"]
outputs = ["ping.out"]
[[op]]
name = "pong"
kind = "elementwise"
elements = 4
inputs = ["ping.out"]
outputs = ["pong.out"]
)");
  auto result = test::run_roofsim("validate '" + cyclic.string() + "'");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("'ping' -> 'pong' -> 'ping'") != std::string::npos);
  const auto unknown = test::write_file(dir, "unknown.toml",
                                        "[workload]\nname = \"u\"\n[[op]]\nname = \"scale\"\n"
                                        "kind = \"elementwise\"\nelements = \"n*2\"\n");
  result = test::run_roofsim("validate '" + unknown.string() + "'");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("op 'scale': key 'elements'") != std::string::npos);
  CHECK(result.err.find("unknown parameter 'n'") != std::string::npos);
  const auto missing = test::write_file(dir, "missing.toml",
                                        "[workload]\nname = \"m\"\n[[op]]\nname = \"use\"\n"
                                        "kind = \"elementwise\"\nelements = 4\n"
                                        "inputs = [\"nowhere\"]\n");
  result = test::run_roofsim("validate '" + missing.string() + "'");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("op 'use'") != std::string::npos);
  CHECK(result.err.find("'nowhere' is unknown") != std::string::npos);
}

TEST_CASE("roofsim list --keys shows the workload keys") {
  const auto result = test::run_roofsim("list --keys");
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("top-level [workload]") != std::string::npos);
  CHECK(result.out.find("op.[].kind") != std::string::npos);
  CHECK(result.out.find("template.[].phase") != std::string::npos);
}

TEST_CASE("roofsim roofline: an op that does not fit the device or lacks its data type is exit 2 naming the op") {
  const auto gemm = test::workload_path("gemm.toml").string();
  const auto h100 = test::config_path("H100-SXM5.toml").string();
  // The device's tile is cut down to fit a small SRAM (to 16 x 16 x 16 at least); 512 B holds not even that.
  auto result =
      test::run_roofsim("roofline --hw '" + h100 + "' --workload '" + gemm + "' --set memory.smem.capacity=512B");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("op 'gemm_8192x8192x8192'") != std::string::npos);
  CHECK(result.err.find("does not fit the local SRAM level 'smem'") != std::string::npos);

  const auto dir = test::scratch_dir("graph-roofline-dtype");
  const auto bf16 = test::write_file(dir, "bf16.toml",
                                     "[workload]\nname = \"b\"\n[[op]]\nname = \"bf16_gemm\"\n"
                                     "kind = \"gemm\"\ndtype = \"bf16\"\nm = 64\nn = 64\nk = 64\n");
  const auto v100 = test::config_path("V100-SXM2.toml").string();
  result = test::run_roofsim("roofline --hw '" + v100 + "' --workload '" + bf16.string() + "' --out '" +
                             (dir / "out").string() + "'");
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("op 'bf16_gemm'") != std::string::npos);
  CHECK(result.err.find("bf16") != std::string::npos);
}
