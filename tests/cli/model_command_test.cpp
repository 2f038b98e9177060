// `--model` on the command line: a bundled config by name in each phase, refused with exit 2 and the per-rank
// breakdown when it does not fit, bad configs and keys named, bundled models listed, unused fields with --verbose.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string out_dir(const std::string& name) {
  return "--out '" + test::scratch_dir(name).string() + "'";
}

}  // namespace

TEST_CASE("roofline --model in each phase writes the model's summary into report.json") {
  for (const std::string phase : {"prefill", "decode", "train"}) {
    CAPTURE(phase);
    const auto dir = test::scratch_dir("model-roofline-" + phase);
    const auto result = test::run_roofsim(
        "roofline --hw H100-SXM5 --model llama3_8b --set workload.phase=" + phase +
        " --set workload.layers=2 --set workload.seq=512 --allow-oversubscribe --out '" + dir.string() + "'");
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("model llama3_8b (llama): 8.030 B parameters") != std::string::npos);
    const auto report = test::read_file(dir / "report.json");
    CHECK(report.find("\"model\"") != std::string::npos);
    CHECK(report.find("\"phase\": \"" + phase + "\"") != std::string::npos);
  }
}

TEST_CASE("a model that does not fit a rank gives exit 2 with the per-rank breakdown") {
  const auto result = test::run_roofsim("roofline --hw H100-SXM5 --model llama3_70b --set workload.phase=decode " +
                                        out_dir("model-too-big"));
  CHECK(result.exit_code == 2);
  for (const char* part : {"does not fit", "params 131.42 GiB", "KV cache", "total", "--allow-oversubscribe"}) {
    CHECK(result.err.find(part) != std::string::npos);
  }
  const auto allowed = test::run_roofsim(
      "roofline --hw H100-SXM5 --model llama3_70b --set workload.phase=decode "
      "--set workload.layers=1 --allow-oversubscribe " +
      out_dir("model-oversubscribed"));
  CHECK(allowed.exit_code == 0);
  CHECK(allowed.err.find("warning: model 'llama3_70b' does not fit") != std::string::npos);
}

TEST_CASE("bad model input is exit 2 naming the key") {
  const auto dir = test::scratch_dir("model-bad");
  const auto unknown = test::write_file(dir / "rwkv.json", R"({"model_type": "rwkv"})");
  const auto bad = test::run_roofsim("roofline --hw H100-SXM5 --model '" + unknown.string() + "' " + out_dir("m1"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("key 'model_type' = \"rwkv\"") != std::string::npos);
  const auto key =
      test::run_roofsim("roofline --hw H100-SXM5 --model llama3_8b --set workload.phaze=decode " + out_dir("m2"));
  CHECK(key.exit_code == 2);
  CHECK(key.err.find("workload.phaze") != std::string::npos);
  const auto tp = test::run_roofsim("roofline --hw H100-SXM5 --model llama3_8b --set workload.tp=3 " + out_dir("m3"));
  CHECK(tp.exit_code == 2);
  CHECK(tp.err.find("key 'workload.tp' = 3: expected a divisor of the heads") != std::string::npos);
  const auto both = test::run_roofsim("roofline --hw H100-SXM5 --model llama3_8b --workload gemm " + out_dir("m4"));
  CHECK(both.exit_code != 0);
}

TEST_CASE("roofsim list names the bundled models, --verbose the unused config fields") {
  const auto list = test::run_roofsim("list");
  for (const char* name :
       {"llama3_8b", "llama3_70b", "llama3.1_405b", "mixtral_8x7b", "qwen2_72b", "deepseek_v3", "gpt3_175b"}) {
    CHECK(list.out.find(std::string("  ") + name + "\n") != std::string::npos);
  }
  const auto verbose = test::run_roofsim(
      "roofline --hw H100-SXM5 --model mixtral_8x7b --set workload.layers=1 "
      "--set workload.seq=128 --verbose --allow-oversubscribe " +
      out_dir("model-verbose"));
  CHECK(verbose.exit_code == 0);
  CHECK(verbose.out.find("config fields not used: ") != std::string::npos);
  CHECK(verbose.out.find("router_aux_loss_coef") != std::string::npos);
}

TEST_CASE("a 3D layout runs one representative per pipeline stage, exactly as --full, and fills dp from the devices") {
  const auto dir = test::scratch_dir("model-3d-layout");
  std::ofstream(dir / "tiny.json") << R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
  "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 4, "vocab_size": 32000,
  "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "tie_word_embeddings": false
})";
  const std::string common = "run --hw 8xH100-NVSwitch --model '" + (dir / "tiny.json").string() +
                             "' --set workload.phase=train --set workload.tp=2 --set workload.pp=2 "
                             "--set workload.layers=2 --set workload.seq=256 --set workload.batch=2 "
                             "--set workload.micro_batches=2 --summary ";
  const auto staged = test::run_roofsim(common + "--out '" + (dir / "staged").string() + "'");
  const auto full = test::run_roofsim(common + "--full --out '" + (dir / "full").string() + "'");
  REQUIRE(staged.exit_code == 0);
  REQUIRE(full.exit_code == 0);
  const auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
  };
  const auto a = read(dir / "staged" / "cluster.json");
  const auto b = read(dir / "full" / "cluster.json");
  CHECK(a["symmetric"].get<bool>());
  CHECK(a["simulated_ranks"].size() == 2);  // dp = 8 / (tp x pp) = 2 filled in; stages 0 and 1
  CHECK(a["simulated_ranks"][0]["represents"].get<int>() == 4);
  CHECK(b["simulated_ranks"].size() == 8);
  CHECK(a["sim_time_s"].get<double>() == b["sim_time_s"].get<double>());
  CHECK(a["collectives"].size() == b["collectives"].size());
  const auto wrong = test::run_roofsim(
      "run --hw 8xH100-NVSwitch --model llama3_8b --set workload.tp=2 "
      "--set workload.dp=2 --set workload.layers=2 " +
      out_dir("model-wrong-devices"));
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("equal to the cluster's 8 devices") != std::string::npos);
}
