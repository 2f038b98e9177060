#pragma once
// A workload file built from a model: a top-level [model] names the model (`name`, a bundled config such as
// "llama3_70b", or `file`, a config.json relative to the workload file), and [workload] holds the keys a `--model`
// run takes as `--set workload.KEY=VALUE` (phase, batch, seq, context, tp, ...). Running it is running `--model` with
// those keys, the command line's --set after them (so they win):
//
//   [workload]
//   description = "Llama 3 70B decode: 8 sequences against 4096 cached positions, tensor parallel over 8"
//   phase = "decode"
//   batch = 8
//   context = 4096
//   tp = 8
//
//   [model]
//   name = "llama3_70b"
#include <filesystem>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"
#include "sim/config/work_limits.h"
#include "sim/graph/model_builder.h"

namespace roofsim {

struct ModelTemplate {
  std::string model;               // the bundled model's name, or the config file's absolute path
  std::string description;         // the file's workload.description
  std::vector<Override> settings;  // the [workload] model keys in file order, as --set gives them (no "workload.")
};

// The schema of such a file: [workload] with a description and every key of model_workload_keys(), [model].
[[nodiscard]] const KeyRegistry& model_template_registry();

// True for a TOML file with a top-level [model]; false for any other file, also one that cannot be read (its loader
// then says why).
[[nodiscard]] bool is_model_template(const std::filesystem::path& file);

// Reads and checks the file: an unknown key, a value of the wrong type or one the key does not take (as --set would
// refuse it), a [model] with neither or both of name and file, or a model that does not exist is an InputError at
// file:line:column naming the key and what was expected.
[[nodiscard]] ModelTemplate read_model_template(const std::filesystem::path& file);

// The model's graph with the file's settings, then `overrides` (model keys without the "workload." prefix).
[[nodiscard]] ModelWorkload build_model_template(const std::filesystem::path& file,
                                                 const std::vector<Override>& overrides,
                                                 Bytes alignment_bytes = kTensorAlignmentBytes,
                                                 const WorkLimits& limits = {});

}  // namespace roofsim
