#pragma once
// The names users type on the command line: input files given by path or by bundled name, and sizes.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace roofsim::cli {

// A file given by path, or a bundled one by name in the first of `subfolders` ("configs", "configs/clusters",
// "workloads", ...) that has it. A bare name that no folder has is an InputError naming the closest bundled names
// ("--hw H100: no bundled device or cluster of that name; did you mean H100-SXM5?"); a path is returned as given, for
// the loader to report what is wrong with it.
[[nodiscard]] std::filesystem::path find_input_file(const std::string& option, const std::string& name_or_path,
                                                    const std::vector<std::string>& subfolders,
                                                    const std::string& what);

// A byte size of a collective sweep. A bare K, M, G or T suffix (either case) is binary, as nccl-tests reads its -b
// and -e ("8G" = 8 GiB = 8589934592 B); the unit spellings of the configuration files keep their meaning ("8GB" =
// 8e9 B, "8GiB" = 2^33 B). An InputError naming `option` when it is not a size greater than 0.
[[nodiscard]] Bytes collective_size_bytes(const std::string& option, const std::string& text);

}  // namespace roofsim::cli
