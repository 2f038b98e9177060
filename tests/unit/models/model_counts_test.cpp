// Parameter counts of every bundled model config against its published count, and the FLOPs of the built graphs
// against the closed forms: 2 x the multiplied weights per token (+ attention) forward, 3x that for training (6 x
// parameters), one more forward of the blocks with full recomputation (8 x parameters).
#include <doctest/doctest.h>

#include <cmath>

#include "sim/graph/model_builder.h"
#include "sim/graph/model_counts.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

ModelConfig bundled(const std::string& name) {
  return load_model_config(test::workload_path("models/" + name + ".json"));
}

struct Published {
  const char* name;
  double params;  // as the model card or paper gives it
};

// Llama 3 model card (8B: 8.03 B, 70B: 70.6 B, as the Hugging Face checkpoints count them), Llama 3.1 405B (the
// "405B" of the Llama 3 paper, Dubey et al. 2024, Table 3), Mixtral of Experts (Jiang et al. 2024: 46.7 B total),
// Qwen2 technical report (Yang et al. 2024: 72.7 B with embeddings, the checkpoint's count), DeepSeek-V3 technical
// report (2024: 671 B total, the multi-token prediction module not included), GPT-3 (Brown et al. 2020, Table 2.1:
// 175.0 B).
constexpr Published kPublished[] = {
    {"llama3_8b", 8.03e9}, {"llama3_70b", 70.6e9}, {"llama3.1_405b", 405e9}, {"mixtral_8x7b", 46.7e9},
    {"qwen2_72b", 72.7e9}, {"deepseek_v3", 671e9}, {"gpt3_175b", 175.0e9},
};

Flops flops_of(const Workload& w, OpKind kind) {
  Flops total = 0;
  for (const auto& op : w.ops) {
    if (op.kind == kind) total += op.useful_flops;
  }
  return total;
}

ModelWorkloadArgs small(ModelPhase phase, std::uint64_t layers) {
  ModelWorkloadArgs a;
  a.phase = phase;
  a.batch = 2;
  a.seq = 64;
  a.layers = layers;
  return a;
}

}  // namespace

TEST_CASE("every bundled config's parameter count is within 0.5% of the published count") {
  for (const auto& published : kPublished) {
    CAPTURE(published.name);
    const auto counts = count_model_params(bundled(published.name));
    const double error = std::abs(static_cast<double>(counts.total) / published.params - 1.0);
    MESSAGE(published.name << ": " << counts.total << " vs " << published.params << ", error " << error * 100 << "%");
    CHECK(error < 0.005);
  }
}

TEST_CASE("exact counts of Llama 3 8B from its config") {
  // 32 layers x (attention 4096 x (4096 + 2 x 1024) + 4096 x 4096, MLP 3 x 4096 x 14336, two norms) + two tables of
  // 128256 x 4096 + the final norm.
  const auto counts = count_model_params(bundled("llama3_8b"));
  const std::uint64_t layer = 4096ULL * 6144 + 4096ULL * 4096 + 3ULL * 4096 * 14336 + 2 * 4096;
  CHECK(counts.total == 32 * layer + 2ULL * 128256 * 4096 + 4096);
  CHECK(counts.total == 8030261248ULL);
  CHECK(counts.active_per_token == counts.total);
}

TEST_CASE("MoE active parameters per token: all but the routed experts a token does not use") {
  const auto mixtral = bundled("mixtral_8x7b");
  const auto m = count_model_params(mixtral);
  const std::uint64_t expert = 3ULL * 4096 * 14336;
  CHECK(m.total - m.active_per_token == 32 * 6 * expert);
  // Mixtral of Experts (Jiang et al. 2024): 12.9 B active.
  CHECK(std::abs(static_cast<double>(m.active_per_token) / 12.9e9 - 1.0) < 0.005);
  const auto deepseek = bundled("deepseek_v3");
  const auto d = count_model_params(deepseek);
  CHECK(d.total - d.active_per_token == 58ULL * 248 * 3 * 7168 * 2048);
  // DeepSeek-V3 report: 37 B activated; the closed form gives 37.55 B with the embedding table, 36.6 B without (the
  // report's figure is rounded to a billion).
  CHECK(std::abs(static_cast<double>(d.active_per_token - d.embedding) / 37e9 - 1.0) < 0.015);
}

TEST_CASE("forward FLOPs of every bundled model's graph are 2 x its multiplied weights per token plus attention") {
  for (const auto& published : kPublished) {
    CAPTURE(published.name);
    const auto config = bundled(published.name);
    const std::uint64_t layers = config.first_dense_layers + 2;
    for (const auto phase : {ModelPhase::prefill, ModelPhase::decode}) {
      CAPTURE(to_string(phase));
      auto args = small(phase, layers);
      const auto model = build_model_workload(config, args);
      const std::uint64_t tokens = phase == ModelPhase::decode ? args.batch : args.batch * args.seq;
      // The LM head computes the next token's logits of each sequence only.
      const Flops gemm =
          2 * tokens * matmul_params_per_token(config, layers, false) + 2 * args.batch * config.vocab * config.hidden;
      CHECK(flops_of(model.workload, OpKind::gemm) == gemm);
      const std::uint64_t pairs = phase == ModelPhase::decode ? args.seq + 1 : args.seq * (args.seq + 1) / 2;
      CHECK(flops_of(model.workload, OpKind::attention) ==
            layers * 4 * args.batch * config.heads * pairs * attention_flop_head_dim(config));
    }
  }
}

TEST_CASE("training FLOPs are 3x the forward's (6 x parameters per token), 4x in the blocks with full recomputation") {
  for (const char* name : {"llama3_8b", "mixtral_8x7b", "deepseek_v3", "gpt3_175b"}) {
    CAPTURE(name);
    const auto config = bundled(name);
    const std::uint64_t layers = config.first_dense_layers + 1;
    auto args = small(ModelPhase::train, layers);
    const std::uint64_t tokens = args.batch * args.seq;
    const Flops forward = 2 * tokens * matmul_params_per_token(config, layers, true);
    const auto plain = build_model_workload(config, args);
    CHECK(flops_of(plain.workload, OpKind::gemm) == 3 * forward);
    const Flops attention =
        layers * 4 * args.batch * config.heads * (args.seq * (args.seq + 1) / 2) * attention_flop_head_dim(config);
    CHECK(flops_of(plain.workload, OpKind::attention) == 3 * attention);
    args.recompute = Recompute::full;
    const auto full = build_model_workload(config, args);
    const Flops head = 2 * tokens * config.vocab * config.hidden;
    CHECK(flops_of(full.workload, OpKind::gemm) == 4 * forward - head);
    CHECK(flops_of(full.workload, OpKind::attention) == 4 * attention);
  }
}

TEST_CASE("an unknown architecture names model_type, a missing size names its field") {
  const auto dir = test::scratch_dir("models-bad-config");
  const auto unknown = test::write_file(dir / "unknown.json", R"({"model_type": "mamba", "hidden_size": 4096})");
  try {
    (void)load_model_config(unknown);
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find("model_type") != std::string::npos);
    CHECK(std::string(error.what()).find("mamba") != std::string::npos);
    CHECK(std::string(error.what()).find("llama") != std::string::npos);
  }
  const auto missing = test::write_file(dir / "missing.json", R"({"model_type": "llama", "hidden_size": 4096})");
  CHECK_THROWS_WITH_AS((void)load_model_config(missing), doctest::Contains("intermediate_size"), InputError);
  const auto config = bundled("deepseek_v3");
  const auto& unused = config.unused_fields;
  CHECK(std::find(unused.begin(), unused.end(), "scoring_func") != unused.end());
  CHECK(std::find(unused.begin(), unused.end(), "hidden_size") == unused.end());
}

TEST_CASE("MLA's query path and its packed Q, K, V are counted at their own widths") {
  // DeepSeek-V3: hidden 7168, q_lora_rank 1536, 128 heads of qk = 128 nope + 64 rope, v_head_dim 128, kv_lora_rank
  // 512; bf16.
  const auto config = bundled("deepseek_v3");
  for (const std::uint64_t tp : {1, 8}) {
    CAPTURE(tp);
    auto args = small(ModelPhase::prefill, 1);
    args.tp = tp;
    const auto model = build_model_workload(config, args);
    const std::uint64_t t = args.batch * args.seq, h = 7168, q_lora = 1536, heads = 128 / tp, qk = 192, v = 128;
    const auto op = [&](const std::string& suffix) -> const Op& {
      for (const auto& candidate : model.workload.ops) {
        if (candidate.name.size() >= suffix.size() &&
            candidate.name.compare(candidate.name.size() - suffix.size(), suffix.size(), suffix) == 0)
          return candidate;
      }
      FAIL("no op named *" << suffix);
      return model.workload.ops.front();
    };
    const auto& q_a = op(".q_a");
    CHECK(q_a.bytes_read == 2 * (t * h + h * q_lora));
    CHECK(q_a.bytes_written == 2 * t * q_lora);
    CHECK(op(".q_a_norm").bytes_written == 2 * t * q_lora);
    const auto& q_b = op(".q_b");
    CHECK(q_b.bytes_read == 2 * (t * q_lora + q_lora * heads * qk));
    CHECK(q_b.bytes_written == 2 * t * heads * qk);
    // The rotary op reads Q, the expanded keys' nope part and V, and the shared rotary key, and writes Q and K at
    // nope + rope and V at v per head: 65536 elements per token on one rank (6.25 % more than three heads of the
    // mean width 160 would hold).
    const auto& rope = op(".rope");
    CHECK(rope.bytes_read == 2 * t * (heads * qk + heads * (128 + v) + 512 + 64));
    CHECK(rope.bytes_written == 2 * t * heads * (2 * qk + v));
    CHECK(qkv_width(config, tp) == heads * (2 * qk + v));
    const auto& attention = op(".attn");
    CHECK(attention.bytes_read == 2 * t * heads * (2 * qk + v));
  }
}
