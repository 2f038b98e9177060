#include "sim/graph/workload_model_template.h"

#include <fmt/format.h>

#include <deque>

#include "sim/config/config_document.h"
#include "sim/config/data_paths.h"
#include "sim/core/input_file.h"
#include "sim/graph/model_config.h"
#include "sim/graph/model_workload_args.h"

namespace roofsim {

namespace {

// A [workload] value as `--set workload.KEY=VALUE` would spell it.
std::string set_text(const toml::node& node) {
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
  if (const auto* real = node.as_floating_point()) return fmt::format("{}", real->get());
  if (const auto* flag = node.as_boolean()) return flag->get() ? "true" : "false";
  return value_text(node);
}

}  // namespace

const KeyRegistry& model_template_registry() {
  static const KeyRegistry registry = [] {
    using namespace schema;
    // KeySpec holds views: the paths live as long as the registry.
    static std::deque<std::string> paths;
    std::vector<KeySpec> specs = {
        {"workload", K::section, Q::bytes, req, "",
         "The workload: the keys a --model run takes as --set workload.KEY=VALUE"},
        {"workload.description", K::text, Q::bytes, opt, "", "What the workload is"},
    };
    for (const auto& key : model_workload_keys()) {
      paths.push_back(std::string("workload.") + key.name);
      specs.emplace_back(paths.back(), key.kind, Q::bytes, opt, key.default_value, key.description, key.choices);
    }
    specs.emplace_back("model", K::section, Q::bytes, req, "", "The model the workload is built from");
    specs.emplace_back("model.name", K::text, Q::bytes, opt, "",
                       "A bundled model config by name (\"llama3_70b\"; `roofsim list` names them)");
    specs.emplace_back("model.file", K::text, Q::bytes, opt, "",
                       "A Hugging Face config.json, relative to this file (in place of name)");
    return KeyRegistry("model workload", std::move(specs));
  }();
  return registry;
}

bool is_model_template(const std::filesystem::path& file) {
  if (!is_acceptable_input_file(file, kMaxConfigFileBytes)) return false;
  try {
    return toml::parse_file(file.string()).contains("model");
  } catch (const toml::parse_error&) {
    return false;
  }
}

ModelTemplate read_model_template(const std::filesystem::path& file) {
  const ConfigDocument document(file, model_template_registry());
  document.check();
  const auto root = document.root();
  const auto workload = *root.child("workload");
  const auto model = *root.child("model");
  ModelTemplate result;
  const bool named = model.has("name"), filed = model.has("file");
  if (named == filed) {
    model.fail(named ? "file" : "name",
               "one of name (a bundled model) and file (a config.json relative to this file), not both");
  }
  std::filesystem::path config;
  if (named) {
    result.model = model.text("name");
    config = resolve_model_file(result.model);
  } else {
    const std::filesystem::path given(model.text("file"));
    config = given.is_absolute() ? given : (std::filesystem::absolute(file).parent_path() / given).lexically_normal();
    result.model = config.string();
  }
  if (!path_exists(config)) {
    model.fail(named ? "name" : "file",
               named ? "a bundled model (see `roofsim list`)" : "a config.json that exists (relative to this file)");
  }
  result.description = workload.optional_text("description").value_or("");
  ModelWorkloadArgs checked;
  for (const auto& key : workload.keys()) {
    if (key == "description") continue;
    Override setting{key, set_text(*workload.node(key))};
    apply_model_workload_key(checked, setting, workload.pos(key));
    result.settings.push_back(std::move(setting));
  }
  return result;
}

ModelWorkload build_model_template(const std::filesystem::path& file, const std::vector<Override>& overrides,
                                   Bytes alignment_bytes, const WorkLimits& limits) {
  const ModelTemplate model = read_model_template(file);
  std::vector<Override> settings = model.settings;
  settings.insert(settings.end(), overrides.begin(), overrides.end());
  return build_model_workload(load_model_config(resolve_model_file(model.model)), read_model_workload_args(settings),
                              alignment_bytes, limits);
}

}  // namespace roofsim
