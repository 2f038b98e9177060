#include "sim/config/key_spec.h"

#include <stdexcept>
#include <utility>

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

}  // namespace

KeyRegistry::KeyRegistry(std::string file_kind, std::vector<KeySpec> specs)
    : file_kind_(std::move(file_kind)), specs_(std::move(specs)) {
  for (auto& spec : specs_) {
    const std::string row = file_kind_ + " schema row '" + std::string(spec.path) + "': ";
    if (!field_holds(spec.field.type(), spec)) throw std::logic_error(row + "its member cannot hold its kind of value");
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

}  // namespace roofsim
