#pragma once
// The schema of a configuration file: one KeySpec per key, with its kind, unit, default, range, a one-line description
// and the member it fills. The same table checks files (unknown keys, types, units, ranges), supplies defaults,
// validates --set overrides and sweep values, fills the parameter structs and prints `roofsim list --keys`, so the
// documentation cannot drift from what the parser accepts.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config/field.h"
#include "sim/config/quantity.h"

namespace roofsim {

enum class ValueKind {
  section,        // a table of further keys
  section_array,  // an array of tables ([[name]])
  quantity,       // a string with a unit, see QuantityKind
  count,          // an integer > 0
  integer,        // an integer >= 0
  real,           // a number (integer or float)
  choice,         // one of the strings in `choices` ("a|b|c")
  text,           // any string
  flag,           // true or false
  text_list,      // an array of strings
  integer_list,   // an array of integers >= 0
  expression,     // an integer, or a string holding an integer expression of workload parameters
  any,            // any value (a workload op's free-form shape entries are checked by the graph layer)
};

enum class Presence { required, optional };

// The values a numeric key accepts, in base units (bytes, B/s, Hz, s, W, J, V; counts and numbers as they are). A
// value orders of magnitude outside what any hardware or workload has is a typo, and taken as it is it would run for
// hours or exhaust memory (a clock of 1e300 GHz, a hundred million units), so it is refused before anything runs.
struct ValueRange {
  double min = 0;
  double max = 0;
  bool zero_allowed = false;  // 0 is accepted besides [min, max]: "none" (no links, no TDP)

  // False for NaN.
  [[nodiscard]] bool contains(double value) const {
    return (value >= min && value <= max) || (zero_allowed && value == 0);
  }
};

struct KeySpec {
  KeySpec(std::string_view path_pattern, ValueKind value_kind, QuantityKind quantity_kind, Presence key_presence,
          std::string_view default_text, std::string_view one_line, std::string_view accepted = {}, Field bound = {},
          std::optional<ValueRange> accepted_range = {})
      : path(path_pattern),
        kind(value_kind),
        quantity(quantity_kind),
        presence(key_presence),
        default_value(default_text),
        description(one_line),
        choices(accepted),
        field(std::move(bound)),
        range(accepted_range ? accepted_range : default_range(value_kind, quantity_kind)) {}
  // A row that fills a member: `{..., "Read queue entries per channel", &DramParams::read_queue, within(1, 65536)}`.
  KeySpec(std::string_view path_pattern, ValueKind value_kind, QuantityKind quantity_kind, Presence key_presence,
          std::string_view default_text, std::string_view one_line, Field bound,
          std::optional<ValueRange> accepted_range = {})
      : KeySpec(path_pattern, value_kind, quantity_kind, key_presence, default_text, one_line, {}, std::move(bound),
                accepted_range) {}

  // The range of a numeric key whose row names none: that of its unit (a clock from 1 MHz to 100 GHz, a bandwidth from
  // 1 kB/s to 10 PB/s, ...); nullopt for keys that are not numbers.
  [[nodiscard]] static std::optional<ValueRange> default_range(ValueKind kind, QuantityKind quantity);

  // Dotted path. A segment "<name>" matches any key (a named memory level, engine or parameter), "<dtype>" a data
  // type name (fp64, fp32, tf32, bf16, fp16, fp8, int8), and "[]" an element of an array of tables.
  std::string_view path;
  ValueKind kind = ValueKind::text;
  QuantityKind quantity = QuantityKind::bytes;  // for ValueKind::quantity
  Presence presence = Presence::optional;
  std::string_view default_value;  // text as it would appear in the file; empty = none
  std::string_view description;
  std::string_view choices;  // for ValueKind::choice: "open|closed|adaptive"; empty when `field` is an enum (its table)
  // The member the key fills, or Field::by_hand() when stage 2 reads the key itself. A row with a default has one of
  // the two (a test checks it), so no default is written where nothing reads it.
  Field field;
  // For numeric kinds (quantity, count, integer, real, integer_list elements, expression values): in base units.
  std::optional<ValueRange> range;
};

class KeyRegistry {
 public:
  // Takes an enum field's spellings as the row's choices. Throws std::logic_error for a row whose field cannot hold
  // the row's kind of value, or whose choices differ from its enum's spellings (a schema bug, found by any test).
  KeyRegistry(std::string file_kind, std::vector<KeySpec> specs);

  // The spec for a concrete path given as segments (array indices already replaced by "[]"); nullptr if unknown.
  [[nodiscard]] const KeySpec* find(const std::vector<std::string>& segments) const;
  // Specs whose parent path matches the given section segments (for "expected one of ..." and required checks).
  [[nodiscard]] std::vector<const KeySpec*> children_of(const std::vector<std::string>& section) const;

  [[nodiscard]] const std::string& file_kind() const { return file_kind_; }
  [[nodiscard]] const std::vector<KeySpec>& specs() const { return specs_; }

 private:
  std::string file_kind_;
  std::vector<KeySpec> specs_;
};

// Short names for writing a schema table, one KeySpec a line (every file kind's schema uses them).
namespace schema {
using K = ValueKind;
using Q = QuantityKind;
inline constexpr Presence req = Presence::required;
inline constexpr Presence opt = Presence::optional;
inline const Field by_hand = Field::by_hand();
// A row's own range, in base units: `within(1, 65536)`, `within(1e6, 100e9)` (Hz).
[[nodiscard]] constexpr ValueRange within(double min, double max) {
  return ValueRange{min, max, false};
}
// The same, with 0 also accepted (a key whose 0 means "none").
[[nodiscard]] constexpr ValueRange zero_or_within(double min, double max) {
  return ValueRange{min, max, true};
}
}  // namespace schema

[[nodiscard]] std::vector<std::string> split_key_path(std::string_view path);
// The unit text shown for a spec in `list --keys` ("bytes", "B/s", "count", "fp64|...").
[[nodiscard]] std::string unit_text(const KeySpec& spec);
// The range of a numeric key in its unit, for `list --keys` and error messages ("1 MHz .. 100 GHz", "0 or 1 .. 1024");
// empty for keys without one.
[[nodiscard]] std::string range_text(const KeySpec& spec);
// The expectation of an error about a value outside the key's range: "a frequency in 1 MHz .. 100 GHz".
[[nodiscard]] std::string range_expectation(const KeySpec& spec);

}  // namespace roofsim
