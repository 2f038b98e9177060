// A workload file's run on a device whose memory cannot hold its tensors: exit 2 naming the workload file, the
// tensors' bytes and the device's dram.capacity, unless the file states it is a what-if or --allow-oversubscribe.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string out_dir(const std::string& name) {
  return "--out '" + test::scratch_dir(name).string() + "'";
}

// One Llama-2-70B decoder layer against a KV cache of 4096 positions, batch 1, fp16 (Touvron et al. 2023: hidden 8192,
// 8 KV heads of 128, SwiGLU MLP of 28672): q and o 8192 x 8192, k and v 8192 x 1024, three MLP matrices 8192 x 28672,
// two RMSNorm weights of 8192; K and V caches 4096 x 1024 each.
constexpr std::uint64_t kLayerWeightBytes =
    2 * (2 * 8192ULL * 8192 + 2 * 8192ULL * 1024 + 3 * 8192ULL * 28672 + 2 * 8192ULL);
constexpr std::uint64_t kLayerCacheBytes = 2 * 2 * 4096ULL * 1024;

// The first "N bytes" after `after` in `text` (0 when absent).
std::uint64_t bytes_after(const std::string& text, const std::string& after) {
  const auto at = text.find(after);
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + after.size()));
}

const std::string kSmall = "--set dram.model=simple --set dram.capacity=1GiB --quiet --summary ";

}  // namespace

TEST_CASE("a workload file whose tensors exceed the device's memory stops with exit 2 naming file, bytes and key") {
  const auto result =
      test::run_roofsim("run --hw H100-SXM5 --workload llama2_70b_decode " + kSmall + out_dir("capacity-refused"));
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("llama2_70b_decode.toml") != std::string::npos);
  CHECK(result.err.find("H100-SXM5.toml sets dram.capacity = 1073741824 bytes") != std::string::npos);
  CHECK(result.err.find("--allow-oversubscribe") != std::string::npos);
  CHECK(result.err.find("workload.oversubscribe") != std::string::npos);
  // The layer's weights and caches, and the few activations of a one-token step (under 1 MiB).
  const std::uint64_t total = bytes_after(result.err, "its tensors take ");
  CHECK(total >= kLayerWeightBytes + kLayerCacheBytes);
  CHECK(total < kLayerWeightBytes + kLayerCacheBytes + (1ULL << 20));
  // The same layer fits the device's own 80 GiB.
  const auto fits =
      test::run_roofsim("run --hw H100-SXM5 --workload llama2_70b_decode --set dram.model=simple --quiet --summary " +
                        out_dir("capacity-fits"));
  CHECK(fits.exit_code == 0);
  CHECK(fits.err.find("does not fit") == std::string::npos);
}

TEST_CASE("--allow-oversubscribe and a file's workload.oversubscribe turn the refusal into a warning") {
  const auto allowed = test::run_roofsim("run --hw H100-SXM5 --workload llama2_70b_decode --allow-oversubscribe " +
                                         kSmall + out_dir("capacity-allowed"));
  CHECK(allowed.exit_code == 0);
  CHECK(allowed.err.find("warning: workload 'llama2_70b_decode' does not fit one H100-SXM5") != std::string::npos);
  const auto stated = test::run_roofsim(
      "run --hw H100-SXM5 --workload llama2_70b_decode --set 'workload.workload.oversubscribe=a test' " + kSmall +
      out_dir("capacity-stated"));
  CHECK(stated.exit_code == 0);
  CHECK(stated.err.find("(workload.oversubscribe): a test") != std::string::npos);
  // The scale benchmark's GPT-3 forward pass states it is a what-if (one layer here, against a 1 GiB device).
  const auto gpt3 = test::run_roofsim(
      "run --hw H100-SXM5 --workload gpt3_175b_forward --set workload.params.layers=1 --set workload.params.seq=128 " +
      kSmall + out_dir("capacity-gpt3"));
  CHECK(gpt3.exit_code == 0);
  CHECK(gpt3.err.find("warning: workload 'gpt3_175b_forward' does not fit") != std::string::npos);
}

TEST_CASE("a cluster run checks one rank's graph against the device's memory") {
  const auto result = test::run_roofsim("run --hw 8xH100-NVSwitch --workload llama2_70b_decode_tp8 " + kSmall +
                                        out_dir("capacity-cluster"));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("does not fit one H100-SXM5") != std::string::npos);
}
