#pragma once
// Bad input is reported, never crashed on: every error names the file, the position, the key, the value and what
// was expected. The CLI turns an InputError into exit code 2.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace roofsim {

struct SourcePos {
  std::string file;        // a path, or "--set" for a command-line override
  std::uint32_t line = 0;  // 1-based; 0 when unknown
  std::uint32_t column = 0;

  [[nodiscard]] std::string to_string() const;  // "file:line:column" (or "file" when the position is unknown)
};

class InputError : public std::runtime_error {
 public:
  // what() reads: "<file>:<line>:<col>: <key> = <value>: expected <expected>" (parts that are empty are left out).
  InputError(SourcePos pos, std::string key, std::string value, std::string expected);
  // A free-form message about a whole file or op (a cycle, an op that does not fit).
  InputError(SourcePos pos, std::string message);

  [[nodiscard]] const SourcePos& pos() const { return pos_; }
  [[nodiscard]] const std::string& key() const { return key_; }

 private:
  SourcePos pos_;
  std::string key_;
};

}  // namespace roofsim
