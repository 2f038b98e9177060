#include "sim/config/key_spec.h"

#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "sim/core/data_type.h"

namespace roofsim {

std::vector<std::string> split_key_path(std::string_view path) {
  std::vector<std::string> segments;
  std::string current;
  for (const char c : path) {
    if (c == '.') {
      segments.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  segments.push_back(current);
  return segments;
}

namespace {

bool segment_matches(std::string_view pattern, std::string_view actual) {
  if (pattern == "<name>") return actual != "[]";
  if (pattern == "<dtype>") return parse_data_type(actual).has_value();
  return pattern == actual;
}

bool path_matches(const std::vector<std::string>& pattern, const std::vector<std::string>& actual) {
  if (pattern.size() != actual.size()) return false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (!segment_matches(pattern[i], actual[i])) return false;
  }
  return true;
}

// Whether a member of this type can hold the values of the row's kind (and unit).
bool field_holds(FieldType type, const KeySpec& spec) {
  switch (type) {
    case FieldType::none: return true;
    case FieldType::text: return spec.kind == ValueKind::text || spec.kind == ValueKind::choice;
    case FieldType::flag: return spec.kind == ValueKind::flag;
    case FieldType::enumeration: return spec.kind == ValueKind::choice;
    case FieldType::unsigned_integer:
      return spec.kind == ValueKind::count || spec.kind == ValueKind::integer ||
             (spec.kind == ValueKind::quantity && spec.quantity == QuantityKind::bytes);
    case FieldType::real:
      return spec.kind == ValueKind::real || (spec.kind == ValueKind::quantity && spec.quantity != QuantityKind::bytes);
  }
  return false;
}

// The largest value of an expression, about that of a std::int64_t (a TOML integer).
constexpr double kLargestInteger = 9.2e18;

// A figure in base units as the file would write it: "1 MHz", "16 TiB", "65536".
std::string figure_text(const KeySpec& spec, double value) {
  if (spec.kind != ValueKind::quantity) {
    if (spec.kind == ValueKind::real) return fmt::format("{:g}", value);
    return fmt::format("{}", static_cast<std::uint64_t>(value));
  }
  switch (spec.quantity) {
    case QuantityKind::bytes: return format_bytes(static_cast<Bytes>(value));
    case QuantityKind::bandwidth: return format_si(value, "B/s");
    case QuantityKind::frequency: return format_si(value, "Hz");
    case QuantityKind::time: return format_si(value, "s");
    case QuantityKind::power: return format_si(value, "W");
    case QuantityKind::energy: return format_si(value, "J");
    case QuantityKind::voltage: return format_si(value, "V");
  }
  return fmt::format("{:g}", value);
}

std::string_view value_noun(const KeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::quantity:
      switch (spec.quantity) {
        case QuantityKind::bytes: return "a byte size";
        case QuantityKind::bandwidth: return "a bandwidth";
        case QuantityKind::frequency: return "a frequency";
        case QuantityKind::time: return "a time";
        case QuantityKind::power: return "a power";
        case QuantityKind::energy: return "an energy";
        case QuantityKind::voltage: return "a voltage";
      }
      return "a quantity";
    case ValueKind::real: return "a number";
    case ValueKind::integer_list: return "elements";
    default: return "an integer";
  }
}

}  // namespace

std::optional<ValueRange> KeySpec::default_range(ValueKind kind, QuantityKind quantity) {
  using schema::within;
  switch (kind) {
    case ValueKind::quantity:
      switch (quantity) {
        case QuantityKind::bytes: return within(0, 16.0 * (1ULL << 40));  // 16 TiB: beyond any device's memory
        case QuantityKind::bandwidth: return within(1e3, 1e16);           // 1 kB/s .. 10 PB/s
        case QuantityKind::frequency: return within(1e6, 100e9);          // 1 MHz .. 100 GHz
        case QuantityKind::time: return within(0, 1);                     // up to 1 s
        case QuantityKind::power: return within(0, 100e3);                // up to 100 kW (a wafer-scale system)
        case QuantityKind::energy: return within(0, 1e-6);                // up to 1 uJ per FLOP, byte or command
        case QuantityKind::voltage: return within(0.01, 10);
      }
      return std::nullopt;
    case ValueKind::count: return within(1, 1 << 20);
    case ValueKind::integer:
    case ValueKind::integer_list: return within(0, 1 << 20);
    case ValueKind::real:
      return within(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());  // finite
    case ValueKind::expression: return within(0, kLargestInteger);
    default: return std::nullopt;
  }
}

KeyRegistry::KeyRegistry(std::string file_kind, std::vector<KeySpec> specs)
    : file_kind_(std::move(file_kind)), specs_(std::move(specs)) {
  for (auto& spec : specs_) {
    const std::string row = file_kind_ + " schema row '" + std::string(spec.path) + "': ";
    if (!field_holds(spec.field.type(), spec)) throw std::logic_error(row + "its member cannot hold its kind of value");
    const bool numeric = KeySpec::default_range(spec.kind, spec.quantity).has_value();
    if (spec.range.has_value() != numeric || (spec.range && !(spec.range->min <= spec.range->max))) {
      throw std::logic_error(row + "a range that its kind of value cannot have");
    }
    if (spec.field.type() != FieldType::enumeration) continue;
    if (!spec.choices.empty() && spec.choices != spec.field.choices()) {
      throw std::logic_error(row + "choices '" + std::string(spec.choices) + "' differ from its enum's spellings '" +
                             std::string(spec.field.choices()) + "'");
    }
    spec.choices = spec.field.choices();
  }
}

const KeySpec* KeyRegistry::find(const std::vector<std::string>& segments) const {
  // Exact names win over wildcards, so `memory.<name>` cannot shadow a fixed key such as `memory.order`.
  const KeySpec* wildcard = nullptr;
  for (const auto& spec : specs_) {
    const auto pattern = split_key_path(spec.path);
    if (!path_matches(pattern, segments)) continue;
    if (pattern == segments) return &spec;
    if (wildcard == nullptr) wildcard = &spec;
  }
  return wildcard;
}

std::vector<const KeySpec*> KeyRegistry::children_of(const std::vector<std::string>& section) const {
  std::vector<const KeySpec*> children;
  for (const auto& spec : specs_) {
    auto pattern = split_key_path(spec.path);
    if (pattern.size() != section.size() + 1) continue;
    pattern.pop_back();
    if (path_matches(pattern, section)) children.push_back(&spec);
  }
  return children;
}

std::string unit_text(const KeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::section: return "table";
    case ValueKind::section_array: return "array of tables";
    case ValueKind::quantity:
      switch (spec.quantity) {
        case QuantityKind::bytes: return "bytes (e.g. \"64KiB\")";
        case QuantityKind::bandwidth: return "bandwidth (e.g. \"3.35TB/s\")";
        case QuantityKind::frequency: return "frequency (e.g. \"1.98GHz\")";
        case QuantityKind::time: return "time (e.g. \"20ns\" or \"30cycles\")";
        case QuantityKind::power: return "power (e.g. \"700W\")";
        case QuantityKind::energy: return "energy (e.g. \"0.4pJ\")";
        case QuantityKind::voltage: return "voltage (e.g. \"0.9V\")";
      }
      return "quantity";
    case ValueKind::count: return "count (integer > 0)";
    case ValueKind::integer: return "integer >= 0";
    case ValueKind::real: return "number";
    case ValueKind::choice: return std::string(spec.choices);
    case ValueKind::text: return "string";
    case ValueKind::flag: return "true|false";
    case ValueKind::text_list: return "array of strings";
    case ValueKind::integer_list: return "array of integers";
    case ValueKind::expression: return "integer or expression";
    case ValueKind::any: return "value";
  }
  return "value";
}

std::string range_text(const KeySpec& spec) {
  if (!spec.range) return {};
  const auto& range = *spec.range;
  if (spec.kind == ValueKind::real && range.min == -std::numeric_limits<double>::max() &&
      range.max == std::numeric_limits<double>::max()) {
    return "finite";
  }
  const std::string span = figure_text(spec, range.min) + " .. " + figure_text(spec, range.max);
  return range.zero_allowed ? "0, or " + span : span;
}

std::string range_expectation(const KeySpec& spec) {
  if (!spec.range) return "a value";
  if (range_text(spec) == "finite") return "a finite number";
  const std::string span = figure_text(spec, spec.range->min) + " .. " + figure_text(spec, spec.range->max);
  return std::string(value_noun(spec)) + (spec.range->zero_allowed ? " of 0 or in " : " in ") + span;
}

}  // namespace roofsim
