#pragma once
// A language model as its Hugging Face `config.json` describes it: the architecture (dense decoder, mixture of
// experts, multi-head latent attention) in the fields the transformers library reads, turned into one struct in
// counts of elements. The graph builder (model_builder.h) and the closed-form counts (model_counts.h) read only this.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace roofsim {

// The families whose layout the builder knows. Each fixes what the config leaves implicit: GPT-2/3 has biases,
// LayerNorm, GELU, learned positions; the Llama family RMSNorm, SwiGLU, RoPE; Qwen2 adds biases on Q, K and V;
// Mixtral and DeepSeek-V3 replace MLPs by experts; DeepSeek-V3 uses multi-head latent attention.
enum class ModelFamily { gpt2, llama, mistral, mixtral, qwen2, deepseek_v3 };

struct ModelConfig {
  std::string name;  // the file's stem ("llama3_70b")
  std::string file;
  std::string model_type;
  ModelFamily family = ModelFamily::llama;
  std::uint64_t hidden = 0;         // hidden_size (n_embd)
  std::uint64_t ffn = 0;            // intermediate_size (n_inner; 4 hidden when null) of a dense MLP
  std::uint64_t layers = 0;         // num_hidden_layers (n_layer)
  std::uint64_t heads = 0;          // num_attention_heads (n_head)
  std::uint64_t kv_heads = 0;       // num_key_value_heads (heads when absent: multi-head attention)
  std::uint64_t head_dim = 0;       // head_dim (hidden / heads when absent)
  std::uint64_t vocab = 0;          // vocab_size
  std::uint64_t max_positions = 0;  // max_position_embeddings (n_positions)
  bool tied_embeddings = false;     // tie_word_embeddings: the LM head is the embedding table
  bool learned_positions = false;   // GPT-2/3: a position table of max_positions x hidden
  bool biases = false;              // GPT-2/3: every linear layer and norm has a bias
  bool qkv_bias = false;            // Qwen2: biases on the Q, K and V projections only
  bool rmsnorm = true;              // RMSNorm (one weight vector) rather than LayerNorm (weight and bias)
  bool gated = true;                // SwiGLU MLP (gate, up, down) rather than up, GELU, down
  bool rope = true;                 // rotary position embedding on Q and K (rope_theta, rope_scaling)
  double rope_theta = 0;            // recorded for the report; RoPE's work does not depend on it
  // Mixture of experts (0 experts: dense).
  std::uint64_t experts = 0;             // num_local_experts / n_routed_experts
  std::uint64_t experts_per_token = 0;   // num_experts_per_tok (top-k)
  std::uint64_t shared_experts = 0;      // n_shared_experts, each of moe_ffn
  std::uint64_t moe_ffn = 0;             // moe_intermediate_size (intermediate_size when absent)
  std::uint64_t first_dense_layers = 0;  // first_k_dense_replace: leading layers with a dense MLP of `ffn`
  bool router_bias = false;              // DeepSeek-V3's e_score_correction_bias (one value per expert)
  // Multi-head latent attention (q_lora_rank 0 with kv_lora_rank 0: ordinary attention).
  std::uint64_t q_lora_rank = 0;
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  // Fields of the file the builder does not read (listed by --verbose), in file order.
  std::vector<std::string> unused_fields;

  [[nodiscard]] bool moe() const { return experts > 0; }
  [[nodiscard]] bool mla() const { return kv_lora_rank > 0; }
  // Whether layer `layer` (0-based) has experts rather than a dense MLP.
  [[nodiscard]] bool moe_layer(std::uint64_t layer) const { return moe() && layer >= first_dense_layers; }
};

// Reads a config.json. Throws InputError (exit 2) naming the file, the key and what was expected: an unknown
// model_type, a missing or non-integer required field, inconsistent sizes (hidden not a multiple of heads, ...).
[[nodiscard]] ModelConfig load_model_config(const std::filesystem::path& file);

// A config given by path, or a bundled one by name ("llama3_70b" finds workloads/models/llama3_70b.json).
[[nodiscard]] std::filesystem::path resolve_model_file(const std::string& name_or_path);

// The bundled configs (workloads/models/*.json), sorted by name.
[[nodiscard]] std::vector<std::filesystem::path> bundled_model_files();

}  // namespace roofsim
