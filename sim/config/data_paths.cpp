#include "sim/config/data_paths.h"

#include <algorithm>
#include <system_error>

namespace roofsim {

bool path_exists(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::exists(path, error) && !error;
}

std::vector<std::filesystem::path> data_dirs() {
  std::vector<std::filesystem::path> dirs;
  for (const auto& dir : {std::filesystem::path(ROOFSIM_SOURCE_DIR), std::filesystem::path(ROOFSIM_INSTALL_DATADIR)}) {
    if (std::filesystem::exists(dir / "configs")) dirs.push_back(dir);
  }
  return dirs;
}

std::filesystem::path resolve_data_file(const std::string& name_or_path, const std::string& subfolder) {
  const std::filesystem::path given(name_or_path);
  if (path_exists(given)) return given;
  if (given.has_parent_path()) return given;
  const std::string file = given.extension() == ".toml" ? name_or_path : name_or_path + ".toml";
  for (const auto& dir : data_dirs()) {
    const auto candidate = dir / subfolder / file;
    if (path_exists(candidate)) return candidate;
  }
  return given;
}

std::vector<std::filesystem::path> bundled_files(const std::string& subfolder) {
  std::vector<std::filesystem::path> files;
  const auto dirs = data_dirs();
  if (dirs.empty()) return files;
  const auto folder = dirs.front() / subfolder;
  if (!std::filesystem::exists(folder)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace roofsim
