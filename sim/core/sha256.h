#pragma once
// SHA-256 (NIST FIPS 180-4, section 6.2) of bytes and of files, as lowercase hex: report.json names the exact input
// files of a run by their digests. None of the libraries roofsim links (Boost 1.74, fmt, nlohmann-json, toml++,
// SystemC) offers SHA-256, so this is the standard's algorithm, checked against its published test vectors.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace roofsim {

[[nodiscard]] std::string sha256_hex(std::string_view bytes);

// The digest of a file's bytes; throws std::runtime_error when it cannot be read.
[[nodiscard]] std::string sha256_file_hex(const std::filesystem::path& file);

}  // namespace roofsim
