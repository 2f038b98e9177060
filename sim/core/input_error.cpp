#include "sim/core/input_error.h"

#include <utility>

namespace roofsim {

std::string SourcePos::to_string() const {
  if (line == 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

namespace {
std::string describe(const SourcePos& pos, const std::string& key, const std::string& value,
                     const std::string& expected) {
  std::string text = pos.to_string() + ": ";
  if (!key.empty()) text += "key '" + key + "'";
  if (!value.empty()) text += " = " + value;
  if (!expected.empty()) text += (key.empty() && value.empty() ? "expected " : ": expected ") + expected;
  return text;
}
}  // namespace

InputError::InputError(SourcePos pos, std::string key, std::string value, std::string expected)
    : std::runtime_error(describe(pos, key, value, expected)), pos_(std::move(pos)), key_(std::move(key)) {}

InputError::InputError(SourcePos pos, std::string message)
    : std::runtime_error(pos.to_string() + ": " + message), pos_(std::move(pos)) {}

}  // namespace roofsim
