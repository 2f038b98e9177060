#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace roofsim {

// Folders holding the bundled configs/ and workloads/: the source tree of this build, then the installed data.
[[nodiscard]] std::vector<std::filesystem::path> data_dirs();

// A file given by path, or a bundled one by name: "H100-SXM5" finds configs/H100-SXM5.toml; "gemm" finds
// workloads/gemm.toml. `subfolder` is "configs", "configs/dram", "configs/clusters" or "workloads".
// Returns the argument unchanged when nothing matches (the loader then reports "file not found").
[[nodiscard]] std::filesystem::path resolve_data_file(const std::string& name_or_path, const std::string& subfolder);

// Whether `path` names an existing file or folder; false also when it cannot be examined (a name over 255 bytes, a
// folder without search permission), so that the loader of the file reports what is wrong with it, by its path.
[[nodiscard]] bool path_exists(const std::filesystem::path& path);

// Bundled files of a subfolder, sorted by name (for `roofsim list`).
[[nodiscard]] std::vector<std::filesystem::path> bundled_files(const std::string& subfolder);

}  // namespace roofsim
