#include "sim/cli/model_option.h"

#include <iostream>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/cli/input_names.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"
#include "sim/graph/hardware_check.h"
#include "sim/graph/workload_model_template.h"
#include "sim/results/model_report.h"

namespace roofsim::cli {

void add_model_options(CLI::App& command, ModelOptions& options, CLI::Option* workload) {
  auto* model = command.add_option(
      "--model", options.model,
      "A Hugging Face config.json, or a bundled model by name (llama3_70b), in place of --workload; its phase and "
      "layout from --set workload.phase=prefill|decode|train, workload.batch, seq, context, tp, pp, dp, ep, zero, ...");
  model->excludes(workload);
  command.add_flag(
      "--verbose", options.verbose,
      "--model: also list the config fields the builder does not use; run: also the memoized-replay counts");
  command.add_flag("--allow-oversubscribe", options.allow_oversubscribe,
                   "Warn rather than stop when a rank's memory footprint (--model) or a workload's tensors exceed the "
                   "device's DRAM");
}

void require_workload_or_model(const std::string& workload, const ModelOptions& options) {
  if (workload.empty() && options.model.empty()) {
    throw InputError(SourcePos{"--workload"}, "--workload", "(missing)", "a workload file or name, or --model");
  }
}

void expand_model_template(std::string& workload, ModelOptions& options, std::vector<std::string>& sets) {
  if (workload.empty()) return;
  const auto file = find_input_file("--workload", workload, {"workloads"}, "workload");
  if (!is_model_template(file)) return;
  const ModelTemplate model = read_model_template(file);
  std::vector<std::string> expanded;
  for (const auto& setting : model.settings) expanded.push_back("workload." + setting.key + "=" + setting.value);
  expanded.insert(expanded.end(), sets.begin(), sets.end());
  sets = std::move(expanded);
  options.model = model.model;
  workload.clear();
}

ModelWorkload load_model_workload(const ModelOptions& options, const std::vector<Override>& overrides,
                                  const HardwareParams& device, std::uint64_t cluster_devices,
                                  const WorkLimits& limits) {
  const ModelConfig config = load_model_config(resolve_model_file(options.model));
  bool dp_unset = true;
  ModelWorkloadArgs args = read_model_workload_args(overrides, &dp_unset);
  if (cluster_devices > 0) {
    const std::uint64_t model_parallel = args.tp * args.pp;
    if (dp_unset && cluster_devices % model_parallel == 0) args.dp = cluster_devices / model_parallel;
    if (args.devices() != cluster_devices) {
      throw InputError(SourcePos{"--set"}, "workload.dp", std::to_string(args.dp),
                       fmt::format("tp x pp x dp = {} x {} x {} equal to the cluster's {} devices", args.tp, args.pp,
                                   args.dp, cluster_devices));
    }
  }
  Bytes alignment = kTensorAlignmentBytes;
  while (alignment < device.compute.request_bytes) alignment *= 2;
  ModelWorkload model = build_model_workload(config, args, alignment, limits);
  check_workload_against_hardware(model.workload, device);
  const Bytes capacity = device.dram ? device.dram->capacity_bytes : 0;
  write_model_summary(model, capacity, options.verbose, std::cout);
  if (capacity > 0 && model.memory.total_bytes() > capacity) {
    const std::string message = fmt::format("model '{}' does not fit one rank's memory of {} ({}): {}", config.name,
                                            device.name, format_bytes(capacity), model.memory.breakdown());
    refuse_oversubscription(SourcePos{config.file}, message,
                            "shard it further (workload.tp, pp, dp with zero, recompute) or pass --allow-oversubscribe",
                            "", options.allow_oversubscribe);
  }
  return model;
}

}  // namespace roofsim::cli
