#include "sim/core/input_file.h"

#include <system_error>

#include <fmt/format.h>

#include "sim/core/input_error.h"

namespace roofsim {

void check_input_file(const std::filesystem::path& path, const std::string& kind, std::uintmax_t max_bytes) {
  const SourcePos where{path.string()};
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw InputError(where, fmt::format("cannot read this {} file: {}", kind, error.message()));
  }
  if (!std::filesystem::exists(status)) {
    throw InputError(where, fmt::format("file not found (expected a {} file)", kind));
  }
  if (std::filesystem::is_directory(status)) {
    throw InputError(where, fmt::format("is a folder (expected a {} file)", kind));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(where,
                     fmt::format("is not a regular file but a device, FIFO or socket (expected a {} file)", kind));
  }
  const auto bytes = std::filesystem::file_size(path, error);
  if (error) throw InputError(where, fmt::format("cannot read this {} file: {}", kind, error.message()));
  if (bytes > max_bytes) {
    throw InputError(where, fmt::format("is {} bytes; a {} file may have at most {} bytes", bytes, kind, max_bytes));
  }
}

bool is_acceptable_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error) || error) return false;
  const auto bytes = std::filesystem::file_size(path, error);
  return !error && bytes <= max_bytes;
}

}  // namespace roofsim
