#pragma once
// The kinds of input file roofsim reads, recognised by their top-level table, each with its schema and its full
// validation (stage 1 and stage 2). `validate` and `list --keys` walk this list.
#include <filesystem>
#include <string_view>
#include <vector>

#include "sim/config/key_spec.h"
#include "sim/config/work_limits.h"

namespace roofsim::cli {

struct FileKind {
  std::string_view root_key;    // the top-level table that identifies the kind ("device", "standard", ...)
  std::string_view name;        // "hardware", "DRAM standard", ...
  std::string_view bundled_in;  // subfolder of bundled files of this kind
  const KeyRegistry& (*registry)();
  void (*validate)(const std::filesystem::path& file, const WorkLimits& limits);  // throws InputError
};

[[nodiscard]] const std::vector<FileKind>& file_kinds();

}  // namespace roofsim::cli
