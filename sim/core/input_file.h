#pragma once
// Input files are read only when they are regular files: a folder, a device such as /dev/zero, a FIFO or a socket
// would make a reader fail obscurely, block or read without end.
#include <cstdint>
#include <filesystem>
#include <string>

namespace roofsim {

// What a configuration, workload or sweep file may weigh: far above any real one, far below what would exhaust memory.
inline constexpr std::uintmax_t kMaxConfigFileBytes = std::uintmax_t{64} << 20;

// Throws InputError (exit 2) naming `path` when it is missing, not a regular file, larger than `max_bytes`, or cannot
// be examined (a name too long, a permission denied on a folder of its path). `kind` names what the file should be
// ("DRAM trace").
void check_input_file(const std::filesystem::path& path, const std::string& kind, std::uintmax_t max_bytes);

// True when check_input_file would accept `path`: for a peek at a file whose loader reports the errors itself.
[[nodiscard]] bool is_acceptable_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes);

}  // namespace roofsim
