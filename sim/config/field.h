#pragma once
// The binding of a schema row (KeySpec) to the member of a parameter struct that its key fills. Stage 2 fills plain
// members with one loop over a section's rows (ConfigSection::read_fields), so a key's documentation, `--set`,
// unknown-key errors, default and parsing all come from its one row; only checks across keys and values that depend
// on other keys are written by hand.
#include <any>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "sim/config/enum_text.h"
#include "sim/core/units.h"

namespace roofsim {

class ConfigSection;
struct KeySpec;

// What a bound member holds, so that the schema can check it against the row's ValueKind.
enum class FieldType {
  none,              // the row binds nothing
  text,              // std::string: text or choice
  flag,              // bool: flag
  enumeration,       // an enum with a spelling table: choice
  unsigned_integer,  // std::uint32_t, std::uint64_t (Bytes): count, integer, byte quantity
  real,              // double (Seconds, Hertz, Watts, ...): a quantity other than bytes, or real
};

// Readers of one key of a section, or of the row's default when the key is absent; nullopt when it is absent and the
// row has no default. Type and unit were checked in stage 1, so what fails here is a value only stage 2 can judge.
namespace field_value {
[[nodiscard]] std::optional<std::string> text(const ConfigSection& section, const KeySpec& spec);
[[nodiscard]] std::optional<bool> flag(const ConfigSection& section, const KeySpec& spec);
[[nodiscard]] std::optional<std::uint64_t> unsigned_integer(const ConfigSection& section, const KeySpec& spec);
// A time in cycles is converted with `cycles_clock_hz` (0: cycles are not allowed for this key).
[[nodiscard]] std::optional<double> real(const ConfigSection& section, const KeySpec& spec, Hertz cycles_clock_hz);
[[noreturn]] void fail_choice(const ConfigSection& section, const KeySpec& spec, std::string_view choices);
}  // namespace field_value

class Field {
 public:
  Field() = default;  // the row fills no member (a section, or a key read elsewhere without a default)
  // A row whose key stage 2 reads by hand: its value depends on another key, is read only under a condition, or
  // fills something other than one member.
  [[nodiscard]] static Field by_hand() {
    Field field;
    field.by_hand_ = true;
    return field;
  }

  // Binds `member`: a std::string (text, choice), a bool (flag), an enum with a spelling table (choice), an unsigned
  // integer (count, integer, byte quantity) or a double (any other quantity, real).
  template <class Params, class Value>
  Field(Value Params::*member);  // implicit, so that a schema row ends in `&Params::member}`
  // A time that may be given in cycles of the clock in `cycles_clock`, which an earlier row of the section fills.
  template <class Params>
  Field(Seconds Params::*member, Hertz Params::*cycles_clock);

  [[nodiscard]] bool binds() const { return reader_.has_value(); }
  [[nodiscard]] bool read_by_hand() const { return by_hand_; }
  [[nodiscard]] FieldType type() const { return type_; }
  [[nodiscard]] std::string_view choices() const { return choices_; }  // an enum's spellings, "a|b|c"

  // When the row binds a member of Params: reads the row's key of `section` (or its default) into `params` and
  // returns true; a key that is absent and has no default leaves the member as it is. Otherwise returns false.
  template <class Params>
  bool read(const ConfigSection& section, const KeySpec& spec, Params& params) const {
    const auto* reader = std::any_cast<Reader<Params>>(&reader_);
    if (reader == nullptr) return false;
    (*reader)(section, spec, params);
    return true;
  }
  // Reads the key as read() does, into a struct of its own that is then dropped: throws InputError when the value
  // (or the default) does not parse. Does nothing for a row that binds nothing.
  void parse_only(const ConfigSection& section, const KeySpec& spec) const {
    if (parse_only_) parse_only_(section, spec);
  }

 private:
  template <class Params>
  using Reader = std::function<void(const ConfigSection&, const KeySpec&, Params&)>;

  template <class Value>
  [[nodiscard]] static constexpr FieldType type_of();
  template <class Value>
  static std::optional<Value> read_value(const ConfigSection& section, const KeySpec& spec, Hertz cycles_clock_hz);
  template <class Params>
  void bind(Reader<Params> reader);

  std::any reader_;  // a Reader<Params>, for the Params the member belongs to
  std::function<void(const ConfigSection&, const KeySpec&)> parse_only_;
  FieldType type_ = FieldType::none;
  std::string_view choices_;
  bool by_hand_ = false;
};

template <class Value>
constexpr FieldType Field::type_of() {
  if constexpr (std::is_same_v<Value, std::string>) {
    return FieldType::text;
  } else if constexpr (std::is_same_v<Value, bool>) {
    return FieldType::flag;
  } else if constexpr (std::is_enum_v<Value>) {
    return FieldType::enumeration;
  } else if constexpr (std::is_integral_v<Value> && std::is_unsigned_v<Value>) {
    return FieldType::unsigned_integer;
  } else {
    static_assert(std::is_same_v<Value, double>, "a configuration key can fill only the member types listed above");
    return FieldType::real;
  }
}

template <class Value>
std::optional<Value> Field::read_value(const ConfigSection& section, const KeySpec& spec, Hertz cycles_clock_hz) {
  if constexpr (std::is_same_v<Value, std::string>) {
    return field_value::text(section, spec);
  } else if constexpr (std::is_same_v<Value, bool>) {
    return field_value::flag(section, spec);
  } else if constexpr (std::is_enum_v<Value>) {
    const auto text = field_value::text(section, spec);
    if (!text) return std::nullopt;
    const auto value = parse_enum<Value>(*text);
    if (!value) field_value::fail_choice(section, spec, enum_choices<Value>());
    return value;
  } else if constexpr (std::is_integral_v<Value>) {
    const auto value = field_value::unsigned_integer(section, spec);
    if (!value) return std::nullopt;
    return static_cast<Value>(*value);
  } else {
    return field_value::real(section, spec, cycles_clock_hz);
  }
}

template <class Params>
void Field::bind(Reader<Params> reader) {
  parse_only_ = [reader](const ConfigSection& section, const KeySpec& spec) {
    Params scratch{};
    reader(section, spec, scratch);
  };
  reader_ = std::move(reader);
}

template <class Params, class Value>
Field::Field(Value Params::*member) : type_(type_of<Value>()) {
  if constexpr (std::is_enum_v<Value>) choices_ = enum_choices<Value>();
  bind<Params>([member](const ConfigSection& section, const KeySpec& spec, Params& params) {
    if (auto value = read_value<Value>(section, spec, 0)) params.*member = *value;
  });
}

template <class Params>
Field::Field(Seconds Params::*member, Hertz Params::*cycles_clock) : type_(FieldType::real) {
  bind<Params>([member, cycles_clock](const ConfigSection& section, const KeySpec& spec, Params& params) {
    if (auto value = read_value<Seconds>(section, spec, params.*cycles_clock)) params.*member = *value;
  });
}

}  // namespace roofsim
