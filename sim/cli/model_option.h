#pragma once
// `--model FILE|NAME` on `run` and `roofline`: a Hugging Face config.json (or a bundled one by name) in place of a
// workload file, its phase and layout from `--set workload.*`, refused with exit 2 and the per-rank breakdown when
// it does not fit the device's memory (unless --allow-oversubscribe).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/config/work_limits.h"
#include "sim/graph/model_builder.h"

namespace roofsim::cli {

struct ModelOptions {
  std::string model;
  bool verbose = false;
  bool allow_oversubscribe = false;
};

// Adds --model, --verbose and --allow-oversubscribe; --model excludes `workload` (one of the two is required: the
// command checks it with require_workload_or_model).
void add_model_options(CLI::App& command, ModelOptions& options, CLI::Option* workload);
void require_workload_or_model(const std::string& workload, const ModelOptions& options);

// A workload file built from a model (a top-level [model], sim/graph/workload_model_template.h) runs as the `--model`
// invocation it stands for: `workload` is cleared, `options.model` names its model, and its [workload] keys come first
// in `sets` as workload.KEY=VALUE (the command line's follow and win). Any other workload is left as it is.
void expand_model_template(std::string& workload, ModelOptions& options, std::vector<std::string>& sets);

// Builds the model's workload for `device`; `cluster_devices` > 0 is a cluster run, whose device count fills dp when
// the user did not set it and must equal tp x pp x dp. Prints the model summary on stdout.
[[nodiscard]] ModelWorkload load_model_workload(const ModelOptions& options, const std::vector<Override>& overrides,
                                                const HardwareParams& device, std::uint64_t cluster_devices,
                                                const WorkLimits& limits);

}  // namespace roofsim::cli
