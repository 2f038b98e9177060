// `roofsim validate FILE...`: checks configuration and workload files without running anything.
#include <iostream>
#include <memory>

#include <toml++/toml.h>

#include "sim/cli/app.h"
#include "sim/cli/file_kinds.h"
#include "sim/core/input_error.h"

namespace roofsim::cli {

namespace {

const FileKind& detect_kind(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) throw InputError(SourcePos{file.string()}, "file not found");
  toml::table table;
  try {
    table = toml::parse_file(file.string());
  } catch (const toml::parse_error& error) {
    throw InputError(SourcePos{file.string(), error.source().begin.line, error.source().begin.column},
                     "malformed TOML: " + std::string(error.description()));
  }
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

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("validate", "Check hardware, DRAM, cluster, workload and sweep files");
  auto files = std::make_shared<std::vector<std::string>>();
  command->add_option("files", *files, "Files to check (the kind is recognised by the top-level table)")->required();
  command->callback([files, &exit_code]() {
    int failures = 0;
    for (const auto& file : *files) {
      try {
        const auto& kind = detect_kind(file);
        kind.validate(file);
        std::cout << file << ": ok (" << kind.name << ")\n";
      } catch (const InputError& error) {
        std::cerr << "roofsim: error: " << error.what() << "\n";
        ++failures;
      }
    }
    exit_code = failures == 0 ? 0 : 2;
  });
}

}  // namespace roofsim::cli
