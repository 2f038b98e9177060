// `roofsim list [--keys]`: bundled files, or every configuration key with its unit, default, range and description.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/cli/file_kinds.h"
#include "sim/config/data_paths.h"
#include "sim/graph/model_config.h"
#include "sim/graph/model_workload_args.h"
#include "sim/graph/workload_model_template.h"

namespace roofsim::cli {

namespace {

void print_keys() {
  for (const auto& kind : file_kinds()) {
    const auto& registry = kind.registry();
    std::cout << fmt::format("# {} file (top-level [{}])\n", kind.name, kind.root_key);
    std::cout << fmt::format("{:<48} {:<34} {:<12} {:<26} {}\n", "key", "unit", "default", "range", "description");
    for (const auto& spec : registry.specs()) {
      if (spec.kind == ValueKind::section) continue;
      const std::string fallback = spec.presence == Presence::required ? "(required)" : "-";
      const std::string range = range_text(spec);
      std::cout << fmt::format("{:<48} {:<34} {:<12} {:<26} {}\n", spec.path, unit_text(spec),
                               spec.default_value.empty() ? fallback : std::string(spec.default_value),
                               range.empty() ? "-" : range, spec.description);
    }
    std::cout << "\n";
  }
  // The keys of a model's workload: --set workload.KEY=VALUE with --model, or a workload file with a top-level [model].
  std::cout << "# --model workload (--set workload.KEY=VALUE), or a workload file built from a model (top-level "
               "[model])\n";
  std::cout << fmt::format("{:<48} {:<34} {:<12} {:<26} {}\n", "key", "unit", "default", "range", "description");
  for (const auto& spec : model_template_registry().specs()) {
    if (spec.kind == ValueKind::section) continue;
    // A count's unit is what it counts (tokens, ranks).
    std::string unit = unit_text(spec);
    for (const auto& key : model_workload_keys()) {
      if (spec.path == std::string("workload.") + key.name && std::string_view(key.unit) != "-") unit = key.unit;
    }
    std::cout << fmt::format("{:<48} {:<34} {:<12} {:<26} {}\n", spec.path, unit,
                             spec.default_value.empty() ? "-" : std::string(spec.default_value), "-", spec.description);
  }
}

void print_bundled() {
  for (const auto& kind : file_kinds()) {
    const auto files = bundled_files(std::string(kind.bundled_in));
    if (files.empty()) continue;
    std::cout << fmt::format("{} files ({}/):\n", kind.name, kind.bundled_in);
    for (const auto& file : files) std::cout << "  " << file.stem().string() << "\n";
  }
  const auto models = bundled_model_files();
  if (models.empty()) return;
  std::cout << "model configs (workloads/models/, for --model):\n";
  for (const auto& file : models) std::cout << "  " << file.stem().string() << "\n";
}

}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("list", "List bundled configs and workloads, or every configuration key");
  auto keys = std::make_shared<bool>(false);
  command->add_flag("--keys", *keys,
                    "Every key of every file kind, with unit, default, range (in base units) and description");
  command->callback([keys, &exit_code]() {
    if (*keys) {
      print_keys();
    } else {
      print_bundled();
    }
    exit_code = 0;
  });
}

}  // namespace roofsim::cli
