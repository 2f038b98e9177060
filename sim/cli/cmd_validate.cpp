// `roofsim validate FILE... [--set KEY=VALUE]...`: checks configuration and workload files without running anything.
// Overrides apply to the files of the kind they address (hardware keys to hardware files, workload.* keys to workload
// files), exactly as `run` would apply them, so a sweep point can be checked before it runs.
#include <iostream>
#include <memory>

#include "sim/cli/app.h"
#include "sim/cli/file_kinds.h"
#include "sim/cli/input_names.h"
#include "sim/config/config_document.h"
#include "sim/config/hardware_params.h"
#include "sim/core/input_error.h"
#include "sim/graph/workload.h"

namespace roofsim::cli {

namespace {

const FileKind& detect_kind(const std::filesystem::path& file) {
  const toml::table table = parse_toml_file(file);
  for (const auto& kind : file_kinds()) {
    if (table.contains(kind.root_key)) return kind;
  }
  std::string expected;
  for (const auto& kind : file_kinds()) {
    if (!expected.empty()) expected += ", ";
    expected += "[" + std::string(kind.root_key) + "] (" + std::string(kind.name) + ")";
  }
  throw InputError(SourcePos{file.string()}, "unknown kind of file: expected a top-level table " + expected);
}

struct OverridesUsed {
  bool hardware = false;
  bool workload = false;
};

// Validates one file with the overrides that address its kind (hardware keys, or workload.* keys).
void validate_file(const FileKind& kind, const std::filesystem::path& file, const SplitOverrides& overrides,
                   const WorkLimits& limits, OverridesUsed& used) {
  if (kind.root_key == "device") {
    (void)load_hardware(file, overrides.hardware);
    used.hardware = true;
  } else if (kind.root_key == "workload") {
    (void)build_workload(file, overrides.workload, kTensorAlignmentBytes, limits);
    used.workload = true;
  } else {
    kind.validate(file, limits);
  }
}

// An override that no file took would be silently ignored; say so instead.
void check_overrides_used(const SplitOverrides& overrides, const OverridesUsed& used) {
  if (!overrides.hardware.empty() && !used.hardware) {
    const auto& first = overrides.hardware.front();
    throw InputError(SourcePos{"--set " + first.key + "=" + first.value},
                     "no hardware file among the files to validate takes this override");
  }
  if (!overrides.workload.empty() && !used.workload) {
    const auto& first = overrides.workload.front();
    throw InputError(SourcePos{"--set workload." + first.key + "=" + first.value},
                     "no workload file among the files to validate takes this override");
  }
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("validate", "Check hardware, DRAM, cluster, workload and sweep files");
  auto files = std::make_shared<std::vector<std::string>>();
  auto sets = std::make_shared<std::vector<std::string>>();
  auto allow_large = std::make_shared<bool>(false);
  command
      ->add_option("files", *files,
                   "Files to check, by path or bundled name (H100-SXM5, gemm); the kind is recognised by the "
                   "top-level table")
      ->required();
  command
      ->add_option(
          "--set", *sets,
          "Override a key before checking, KEY=VALUE (repeatable): a hardware key (--set memory.l2.capacity=16MiB) "
          "or, prefixed workload., a workload key (--set workload.params.batch=8)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_allow_large_flag(*command, *allow_large);
  command->callback([files, sets, allow_large, &exit_code]() {
    const auto overrides = split_overrides(*sets);
    const WorkLimits limits = work_limits(*allow_large);
    int failures = 0;
    OverridesUsed used;
    for (const auto& file : *files) {
      try {
        // A bundled name is found as `run` finds it (validate H100-SXM5 gemm).
        const auto path =
            find_input_file("validate", file, {"configs", "configs/clusters", "configs/dram", "workloads", "sweeps"},
                            "device, cluster, DRAM standard, workload or sweep");
        const auto& kind = detect_kind(path);
        validate_file(kind, path, overrides, limits, used);
        std::cout << file << ": ok (" << kind.name << ")\n";
      } catch (const InputError& error) {
        std::cerr << "roofsim: error: " << error.what() << "\n";
        ++failures;
      }
    }
    if (failures == 0) check_overrides_used(overrides, used);
    exit_code = failures == 0 ? 0 : 2;
  });
}

}  // namespace roofsim::cli
