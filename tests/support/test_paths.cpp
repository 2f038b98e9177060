#include "tests/support/test_paths.h"

#include "tests/support/json_schema.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace roofsim::test {

std::filesystem::path source_dir() {
  return ROOFSIM_SOURCE_DIR;
}
std::filesystem::path config_path(const std::string& relative) {
  return source_dir() / "configs" / relative;
}
std::filesystem::path workload_path(const std::string& relative) {
  return source_dir() / "workloads" / relative;
}
std::filesystem::path roofsim_binary() {
  return ROOFSIM_BINARY;
}

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::path(ROOFSIM_BINARY).parent_path() / "test-scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::filesystem::path write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  return file;
}

CommandResult run_roofsim(const std::string& args) {
  static int counter = 0;
  const auto dir = scratch_dir("cmd-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  const auto out_file = dir / "stdout";
  const auto err_file = dir / "stderr";
  const std::string command = "'" + roofsim_binary().string() + "' " + args + " >'" + out_file.string() + "' 2>'" +
                              err_file.string() + "' </dev/null";
  const auto folder = out_folder_of(args);
  const auto reports_before = report_files_under(folder);
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out_file);
  result.err = read_file(err_file);
  // Every report.json a test's command writes is checked against docs/report.schema.json (relative folders are
  // relative to where the test runs, as the command's are); the files that were there before and did not change are
  // the test's own fixtures.
  if (!folder.empty()) check_reports_against_schema(folder, reports_before);
  return result;
}

}  // namespace roofsim::test
