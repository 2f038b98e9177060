#include "sim/cli/input_names.h"

#include <cctype>
#include <cmath>

#include "sim/config/data_paths.h"
#include "sim/config/quantity.h"
#include "sim/config/suggestions.h"
#include "sim/core/input_error.h"

namespace roofsim::cli {

std::filesystem::path find_input_file(const std::string& option, const std::string& name_or_path,
                                      const std::vector<std::string>& subfolders, const std::string& what) {
  for (const auto& subfolder : subfolders) {
    const auto found = resolve_data_file(name_or_path, subfolder);
    if (path_exists(found)) return found;
  }
  const std::filesystem::path given(name_or_path);
  if (given.has_parent_path() || given.extension() == ".toml" || name_or_path.empty()) return given;
  std::vector<std::string> names;
  for (const auto& subfolder : subfolders) {
    for (const auto& file : bundled_files(subfolder)) names.push_back(file.stem().string());
  }
  throw InputError(SourcePos{option + " " + name_or_path}, "no file and no bundled " + what +
                                                               " of that name (`roofsim list` names them)" +
                                                               did_you_mean(name_or_path, names));
}

Bytes collective_size_bytes(const std::string& option, const std::string& text) {
  const auto fail = [&]() -> Bytes {
    throw InputError(SourcePos{option + " " + text}, option, text,
                     "a byte size greater than 0: 8B, 8GB (10^9), 8GiB or 8G (2^30, as nccl-tests)");
  };
  if (text.empty()) return fail();
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  const std::string binary = "KMGT";
  const auto power = binary.find(last);
  if (power != std::string::npos && text.size() > 1 &&
      std::isdigit(static_cast<unsigned char>(text[text.size() - 2]))) {
    // nccl-tests' parsesize: the number times 1024^(1, 2, 3, 4).
    const auto number = parse_bytes(text.substr(0, text.size() - 1) + "B");
    if (!number || *number == 0) return fail();
    const double scaled = static_cast<double>(*number) * std::pow(1024.0, static_cast<double>(power + 1));
    if (scaled >= 1.8e19) return fail();
    return static_cast<Bytes>(scaled);
  }
  // A plain number is bytes, as in nccl-tests.
  const bool digits = text.find_first_not_of("0123456789") == std::string::npos;
  const auto bytes = parse_bytes(digits ? text + "B" : text);
  if (!bytes || *bytes == 0) return fail();
  return *bytes;
}

}  // namespace roofsim::cli
