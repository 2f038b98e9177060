#pragma once
// Test data is located through the build system, never relative to the working directory.
#include <filesystem>
#include <string>

namespace roofsim::test {

std::filesystem::path source_dir();
std::filesystem::path config_path(const std::string& relative);    // configs/<relative>
std::filesystem::path workload_path(const std::string& relative);  // workloads/<relative>
std::filesystem::path roofsim_binary();
// A fresh empty directory under the build tree for a test's outputs.
std::filesystem::path scratch_dir(const std::string& name);

struct CommandResult {
  int exit_code = 0;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs build/roofsim with the given arguments (shell-quoted by the caller where needed).
CommandResult run_roofsim(const std::string& args);

// The whole file as bytes ("" when it cannot be read), and a file written with `text` (returns its path).
std::string read_file(const std::filesystem::path& file);
std::filesystem::path write_file(const std::filesystem::path& file, const std::string& text);

}  // namespace roofsim::test
