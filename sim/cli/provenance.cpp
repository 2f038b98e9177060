#include "sim/cli/provenance.h"

#include "sim/core/sha256.h"

namespace roofsim::cli {

namespace {

std::string& command_line_text() {
  static std::string text = "roofsim";
  return text;
}

// Single quotes around an argument the shell would split or expand; a quote inside becomes '\''.
std::string shell_quoted(const std::string& argument) {
  if (!argument.empty() && argument.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                      "_-+=.,/:@%") == std::string::npos) {
    return argument;
  }
  std::string quoted = "'";
  for (const char c : argument) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

void add_input(Provenance& provenance, const std::string& role, const std::string& path) {
  if (path.empty()) return;
  for (const auto& input : provenance.inputs) {
    if (input.path == path) return;
  }
  provenance.inputs.push_back({role, path, sha256_file_hex(path)});
}

}  // namespace

void record_command_line(int argc, char* argv[]) {
  // argv[0] is wherever the binary was started from; the command is roofsim whatever its path.
  std::string text = "roofsim";
  for (int i = 1; i < argc; ++i) text += " " + shell_quoted(argv[i]);
  command_line_text() = std::move(text);
}

const std::string& recorded_command_line() {
  return command_line_text();
}

Provenance make_provenance(const HardwareParams& hardware, const Workload& workload,
                           const std::vector<std::string>& sets, const std::filesystem::path& cluster_file) {
  Provenance provenance;
  provenance.command_line = recorded_command_line();
  provenance.overrides = sets;
  if (!cluster_file.empty()) add_input(provenance, "cluster", cluster_file.string());
  add_input(provenance, "hardware", hardware.file);
  if (hardware.dram) add_input(provenance, "dram", hardware.dram->standard.file);
  add_input(provenance, "workload", workload.file);
  return provenance;
}

}  // namespace roofsim::cli
