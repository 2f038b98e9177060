#include "sim/graph/model_config.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/config/data_paths.h"
#include "sim/core/input_error.h"
#include "sim/core/input_file.h"

namespace roofsim {

namespace {

using Json = nlohmann::ordered_json;

struct FamilySpelling {
  const char* model_type;
  ModelFamily family;
};

// model_type as the transformers library spells it (configuration_<type>.py).
constexpr FamilySpelling kFamilies[] = {
    {"gpt2", ModelFamily::gpt2},       {"llama", ModelFamily::llama}, {"mistral", ModelFamily::mistral},
    {"mixtral", ModelFamily::mixtral}, {"qwen2", ModelFamily::qwen2}, {"deepseek_v3", ModelFamily::deepseek_v3},
};

std::string known_types() {
  std::string text;
  for (const auto& spelling : kFamilies) text += (text.empty() ? "" : ", ") + std::string(spelling.model_type);
  return text;
}

// Reads fields and remembers which it read, so that the rest can be listed as unused.
class Fields {
 public:
  Fields(const Json& json, std::string file) : json_(json), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
    const auto it = json_.find(key);
    throw InputError(SourcePos{file_}, key, it == json_.end() ? "(missing)" : it->dump(), expected);
  }

  bool has(const std::string& key) {
    const auto it = json_.find(key);
    return it != json_.end() && !it->is_null();
  }

  // A positive integer count; `fallback` when absent or null (0 fallback: required).
  std::uint64_t count(const std::string& key, std::uint64_t fallback = 0) {
    used_.insert(key);
    const auto it = json_.find(key);
    if (it == json_.end() || it->is_null()) {
      if (fallback == 0) fail(key, "a positive integer (the field is required)");
      return fallback;
    }
    if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) fail(key, "a positive integer");
    return it->get<std::uint64_t>();
  }

  // A count that may be 0 (first_k_dense_replace, n_shared_experts).
  std::uint64_t count_or_zero(const std::string& key) {
    used_.insert(key);
    const auto it = json_.find(key);
    if (it == json_.end() || it->is_null()) return 0;
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0) fail(key, "an integer >= 0");
    return it->get<std::uint64_t>();
  }

  bool flag(const std::string& key, bool fallback) {
    used_.insert(key);
    const auto it = json_.find(key);
    if (it == json_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) fail(key, "true or false");
    return it->get<bool>();
  }

  double number(const std::string& key) {
    used_.insert(key);
    const auto it = json_.find(key);
    if (it == json_.end() || it->is_null()) return 0;
    if (!it->is_number()) fail(key, "a number");
    return it->get<double>();
  }

  std::string text(const std::string& key) {
    used_.insert(key);
    const auto it = json_.find(key);
    if (it == json_.end() || !it->is_string()) fail(key, "a string naming the architecture (" + known_types() + ")");
    return it->get<std::string>();
  }

  void mark_used(const std::string& key) { used_.insert(key); }

  std::vector<std::string> unused() const {
    std::vector<std::string> keys;
    for (const auto& item : json_.items()) {
      if (used_.count(item.key()) == 0) keys.push_back(item.key());
    }
    return keys;
  }

 private:
  const Json& json_;
  std::string file_;
  std::set<std::string> used_;
};

Json parse_json(const std::filesystem::path& file) {
  check_input_file(file, "model config (config.json)", kMaxConfigFileBytes);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  try {
    Json json = Json::parse(text.str());
    if (!json.is_object()) throw InputError(SourcePos{file.string()}, "expected a JSON object (a config.json)");
    return json;
  } catch (const Json::parse_error& error) {
    throw InputError(SourcePos{file.string()}, std::string("not valid JSON: ") + error.what());
  }
}

void require(bool condition, Fields& fields, const std::string& key, const std::string& expected) {
  if (!condition) fields.fail(key, expected);
}

}  // namespace

ModelConfig load_model_config(const std::filesystem::path& file) {
  const Json json = parse_json(file);
  Fields f(json, file.string());
  ModelConfig c;
  c.file = file.string();
  c.name = file.stem().string();
  c.model_type = f.text("model_type");
  const auto* spelling = std::find_if(std::begin(kFamilies), std::end(kFamilies),
                                      [&](const FamilySpelling& s) { return c.model_type == s.model_type; });
  if (spelling == std::end(kFamilies)) f.fail("model_type", "an architecture roofsim builds (" + known_types() + ")");
  c.family = spelling->family;
  // Fields that name the checkpoint's own layout, not a size; they change nothing the builder counts.
  for (const char* key : {"architectures", "torch_dtype", "transformers_version", "bos_token_id", "eos_token_id"}) {
    f.mark_used(key);
  }

  if (c.family == ModelFamily::gpt2) {
    // GPT-2's names (configuration_gpt2.py); GPT-3 is the same layout at other sizes (Brown et al. 2020, section 2.1).
    c.hidden = f.count("n_embd");
    c.layers = f.count("n_layer");
    c.heads = f.count("n_head");
    c.ffn = f.count("n_inner", 4 * c.hidden);
    c.max_positions = f.count("n_positions");
    c.vocab = f.count("vocab_size");
    c.kv_heads = c.heads;
    c.head_dim = c.hidden / c.heads;
    c.tied_embeddings = f.flag("tie_word_embeddings", true);
    c.learned_positions = true;
    c.biases = true;
    c.rmsnorm = false;
    c.gated = false;
    c.rope = false;
    f.mark_used("activation_function");
  } else {
    c.hidden = f.count("hidden_size");
    c.ffn = f.count("intermediate_size");
    c.layers = f.count("num_hidden_layers");
    c.heads = f.count("num_attention_heads");
    c.kv_heads = f.count("num_key_value_heads", c.heads);
    c.head_dim = f.count("head_dim", c.hidden / c.heads);
    c.vocab = f.count("vocab_size");
    c.max_positions = f.count("max_position_embeddings");
    c.tied_embeddings = f.flag("tie_word_embeddings", false);
    c.rope_theta = f.number("rope_theta");
    f.mark_used("rope_scaling");
    f.mark_used("hidden_act");
    f.mark_used("rms_norm_eps");
    c.qkv_bias = c.family == ModelFamily::qwen2;
    if (f.has("attention_bias")) c.qkv_bias = f.flag("attention_bias", false);
    if (c.family == ModelFamily::mixtral) {
      c.experts = f.count("num_local_experts");
      c.experts_per_token = f.count("num_experts_per_tok");
      c.moe_ffn = c.ffn;
    }
    if (c.family == ModelFamily::deepseek_v3) {
      c.experts = f.count("n_routed_experts");
      c.experts_per_token = f.count("num_experts_per_tok");
      c.shared_experts = f.count_or_zero("n_shared_experts");
      c.moe_ffn = f.count("moe_intermediate_size");
      c.first_dense_layers = f.count_or_zero("first_k_dense_replace");
      // Auxiliary-loss-free balancing ("noaux_tc", DeepSeek-V3 report section 2.1.2) adds one bias per expert.
      c.router_bias = f.has("topk_method") && json.at("topk_method") == "noaux_tc";
      f.mark_used("topk_method");
      c.q_lora_rank = f.count_or_zero("q_lora_rank");
      c.kv_lora_rank = f.count("kv_lora_rank");
      c.qk_nope_head_dim = f.count("qk_nope_head_dim");
      c.qk_rope_head_dim = f.count("qk_rope_head_dim");
      c.v_head_dim = f.count("v_head_dim");
      c.head_dim = c.qk_nope_head_dim + c.qk_rope_head_dim;
      c.kv_heads = c.heads;
      require(c.first_dense_layers <= c.layers, f, "first_k_dense_replace", "at most num_hidden_layers");
    }
  }
  require(c.hidden % c.heads == 0 || c.mla() || f.has("head_dim"), f, "num_attention_heads",
          "a divisor of hidden_size (or give head_dim)");
  require(c.heads % c.kv_heads == 0, f, "num_key_value_heads",
          "a divisor of num_attention_heads (" + std::to_string(c.heads) + ")");
  if (c.moe()) {
    require(c.experts_per_token <= c.experts, f, "num_experts_per_tok",
            "at most the number of experts (" + std::to_string(c.experts) + ")");
  }
  c.unused_fields = f.unused();
  return c;
}

std::filesystem::path resolve_model_file(const std::string& name_or_path) {
  const std::filesystem::path given(name_or_path);
  if (path_exists(given) || given.has_parent_path()) return given;
  const std::string file = given.extension() == ".json" ? name_or_path : name_or_path + ".json";
  for (const auto& dir : data_dirs()) {
    const auto candidate = dir / "workloads" / "models" / file;
    if (path_exists(candidate)) return candidate;
  }
  return given;
}

std::vector<std::filesystem::path> bundled_model_files() {
  std::vector<std::filesystem::path> files;
  const auto dirs = data_dirs();
  if (dirs.empty()) return files;
  const auto folder = dirs.front() / "workloads" / "models";
  if (!path_exists(folder)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace roofsim
