#pragma once
// Enums as text: parsing, printing and the list of accepted spellings all read one table per enum type,
// EnumSpellings<Enum> (the tables are in sim/config/enum_spellings.h), so a configuration file, `--set`, a command-line
// option, `roofsim list --keys` and an "expected one of" message accept and show exactly the same words.
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/input_error.h"

namespace roofsim {

template <class Enum>
struct EnumSpelling {
  Enum value;
  std::string_view text;
};

// Specialised once per enum with a member `kAll`: an array of EnumSpelling<Enum>, one per value, in the order they
// are listed to a user. There is no primary definition, so using an enum that has no table does not compile.
template <class Enum>
struct EnumSpellings;

template <class Enum>
[[nodiscard]] std::optional<Enum> parse_enum(std::string_view text) {
  for (const auto& spelling : EnumSpellings<Enum>::kAll) {
    if (spelling.text == text) return spelling.value;
  }
  return std::nullopt;
}

// The spelling of a value ("open" for PagePolicy::open). Declared for every enum with a table; an enum that also has
// its own to_string overload keeps it (a non-template function wins), and that overload reads the same table.
template <class Enum, class = decltype(EnumSpellings<Enum>::kAll)>
[[nodiscard]] std::string_view to_string(Enum value) {
  for (const auto& spelling : EnumSpellings<Enum>::kAll) {
    if (spelling.value == value) return spelling.text;
  }
  return "?";
}

// Every spelling, joined by '|' in table order ("open|closed|adaptive"); the text lives as long as the program, so a
// KeySpec may view it.
template <class Enum>
[[nodiscard]] const std::string& enum_choices() {
  static const std::string choices = [] {
    std::string joined;
    for (const auto& spelling : EnumSpellings<Enum>::kAll) {
      if (!joined.empty()) joined += '|';
      joined += spelling.text;
    }
    return joined;
  }();
  return choices;
}

// For a command-line option: the value `text` of `option` ("--page-policy"), or an InputError that names the option
// and lists every accepted spelling.
template <class Enum>
[[nodiscard]] Enum parse_enum_option(std::string_view option, std::string_view text) {
  if (const auto value = parse_enum<Enum>(text)) return *value;
  throw InputError(SourcePos{std::string(option)}, std::string(option), std::string(text),
                   "one of " + enum_choices<Enum>());
}

}  // namespace roofsim
