#include "sim/config/config_document.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "sim/config/suggestions.h"
#include "sim/core/data_type.h"
#include "sim/core/input_file.h"

namespace roofsim {

namespace {

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string kinds_expected(const KeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::section: return "a table";
    case ValueKind::section_array: return "an array of tables ([[...]])";
    case ValueKind::quantity: return expected_text(spec.quantity);
    case ValueKind::count: return "an integer greater than 0";
    case ValueKind::integer: return "an integer >= 0";
    case ValueKind::real: return "a number";
    case ValueKind::choice: return "one of " + std::string(spec.choices);
    case ValueKind::text: return "a string";
    case ValueKind::flag: return "true or false";
    case ValueKind::text_list: return "an array of strings";
    case ValueKind::integer_list: return "an array of integers >= 0";
    case ValueKind::expression: return "an integer or a string with an integer expression";
    case ValueKind::any: return "a value";
  }
  return "a value";
}

bool choice_allowed(std::string_view choices, std::string_view value) {
  std::size_t start = 0;
  while (start <= choices.size()) {
    const auto bar = choices.find('|', start);
    const auto option = choices.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (option == value) return true;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return false;
}

std::vector<std::string> source_ordered_keys(const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (auto&& [key, node] : table) entries.emplace_back(std::string(key.str()), &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& sa = a.second->source().begin;
    const auto& sb = b.second->source().begin;
    // Values without a position (overrides) go last, in key order.
    const auto la = sa.line == 0 ? UINT32_MAX : sa.line;
    const auto lb = sb.line == 0 ? UINT32_MAX : sb.line;
    if (la != lb) return la < lb;
    return sa.column < sb.column;
  });
  std::vector<std::string> keys;
  for (auto& entry : entries) keys.push_back(std::move(entry.first));
  return keys;
}

// The value of a number node (NaN and infinities included, which TOML can spell).
double number_of(const toml::node& node) {
  return node.is_integer() ? static_cast<double>(node.as_integer()->get()) : node.as_floating_point()->get();
}

// What a value of `spec` must be (the text after "expected"), or nullopt when `node` is one: its type, its unit, and
// its range where its value in base units is known without other keys. A time in cycles waits for its clock, and an
// expression (a literal too) is range-checked where the workload evaluates it, in an error that names its op.
std::optional<std::string> value_problem(const toml::node& node, const KeySpec& spec) {
  const auto out_of_range = [&spec](double value) { return spec.range && !spec.range->contains(value); };
  const std::optional<std::string> wrong = kinds_expected(spec);
  switch (spec.kind) {
    case ValueKind::quantity: {
      const auto* text = node.as_string();
      if (text == nullptr) return wrong;
      const auto parsed = parse_quantity(text->get(), spec.quantity);
      if (!parsed) return wrong;
      if (parsed->value < 0) return "a value that is not negative: " + kinds_expected(spec);
      if (spec.quantity == QuantityKind::bytes && !parse_bytes(text->get())) return wrong;
      if (!parsed->in_cycles && out_of_range(parsed->value)) return range_expectation(spec);
      return std::nullopt;
    }
    case ValueKind::count:
      if (!node.is_integer() || node.as_integer()->get() <= 0) return wrong;
      break;
    case ValueKind::integer:
      if (!node.is_integer() || node.as_integer()->get() < 0) return wrong;
      break;
    case ValueKind::real:
      if (!node.is_number()) return wrong;
      break;
    case ValueKind::choice:
      if (!node.is_string() || !choice_allowed(spec.choices, node.as_string()->get())) return wrong;
      return std::nullopt;
    case ValueKind::text:
      if (!node.is_string()) return wrong;
      return std::nullopt;
    case ValueKind::flag:
      if (!node.is_boolean()) return wrong;
      return std::nullopt;
    case ValueKind::text_list: {
      const auto* array = node.as_array();
      if (array == nullptr) return wrong;
      for (const auto& element : *array) {
        if (!element.is_string()) return wrong;
      }
      return std::nullopt;
    }
    case ValueKind::integer_list: {
      const auto* array = node.as_array();
      if (array == nullptr) return wrong;
      for (const auto& element : *array) {
        if (!element.is_integer() || element.as_integer()->get() < 0) return wrong;
        if (out_of_range(number_of(element))) return range_expectation(spec);
      }
      return std::nullopt;
    }
    case ValueKind::expression:
      if (!node.is_integer() && !node.is_string()) return wrong;
      if (node.is_integer() && node.as_integer()->get() < 0) return wrong;
      return std::nullopt;
    case ValueKind::any:
    case ValueKind::section:
    case ValueKind::section_array: return std::nullopt;
  }
  if (out_of_range(number_of(node))) return range_expectation(spec);
  return std::nullopt;
}

// VALUE of `--set KEY=VALUE` as a TOML value when it is one (64, 0.5, true, [1, 2], "text"), else as a string
// ("450W"), in a table under "value".
toml::table parse_override_value(std::string_view value, const std::string& origin) {
  try {
    return toml::parse("value = " + std::string(value), origin);
  } catch (const toml::parse_error&) {
    toml::table quoted;
    quoted.insert("value", std::string(value));
    return quoted;
  }
}

}  // namespace

std::string value_text(const toml::node& node) {
  if (const auto* text = node.as_string()) return "\"" + text->get() + "\"";
  std::ostringstream out;
  if (const auto* array = node.as_array()) {
    out << *array;
  } else if (const auto* table = node.as_table()) {
    (void)table;
    return "(a table)";
  } else {
    node.visit([&out](auto&& value) { out << value; });
  }
  return out.str();
}

toml::table parse_toml_text(std::string_view text, const std::string& name) {
  try {
    return toml::parse(text, name);
  } catch (const toml::parse_error& error) {
    const auto& begin = error.source().begin;
    // The parser's description rarely names the key; the offending line does.
    std::size_t start = 0;
    for (std::uint32_t line = 1; line < begin.line && start != std::string_view::npos; ++line) {
      start = text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    std::string excerpt;
    if (start != std::string_view::npos && start < text.size()) {
      excerpt = std::string(text.substr(start, text.find('\n', start) - start));
      while (!excerpt.empty() && std::isspace(static_cast<unsigned char>(excerpt.back())) != 0) excerpt.pop_back();
    }
    throw InputError(SourcePos{name, begin.line, begin.column},
                     "malformed TOML: " + std::string(error.description()) +
                         (excerpt.empty() ? std::string() : " (the line reads: " + excerpt + ")"));
  }
}

toml::table parse_toml_file(const std::filesystem::path& file, const std::string& kind) {
  check_input_file(file, kind, kMaxConfigFileBytes);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(SourcePos{file.string()}, "cannot open this " + kind + " file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_toml_text(text.str(), file.string());
}

ConfigDocument::ConfigDocument(const std::filesystem::path& file, const KeyRegistry& registry)
    : file_name_(file.string()), registry_(&registry) {
  table_ = parse_toml_file(file, registry.file_kind());
}

ConfigDocument::ConfigDocument(std::string_view text, std::string name, const KeyRegistry& registry)
    : file_name_(std::move(name)), registry_(&registry) {
  table_ = parse_toml_text(text, file_name_);
}

SourcePos ConfigDocument::pos_of(const toml::node& node) const {
  const auto& source = node.source();
  if (source.path && source.path->rfind("--set ", 0) == 0) return SourcePos{*source.path};
  if (source.begin.line == 0) return SourcePos{file_name_};
  return SourcePos{file_name_, source.begin.line, source.begin.column};
}

namespace {

// The keys `--set` may name: every leaf of the schema, as `list --keys` prints them.
std::vector<std::string> settable_keys(const KeyRegistry& registry) {
  std::vector<std::string> keys;
  for (const auto& spec : registry.specs()) {
    if (spec.kind != ValueKind::section && spec.kind != ValueKind::section_array) keys.emplace_back(spec.path);
  }
  return keys;
}

}  // namespace

void ConfigDocument::apply_override(std::string_view key, std::string_view value) {
  const std::string origin = "--set " + std::string(key) + "=" + std::string(value);
  const auto segments = split_key_path(key);
  const KeySpec* spec = registry_->find(segments);
  if (spec == nullptr || spec->kind == ValueKind::section || spec->kind == ValueKind::section_array) {
    throw InputError(SourcePos{origin}, std::string(key), std::string(value),
                     "a known " + registry_->file_kind() + " key (see `roofsim list --keys`)" +
                         did_you_mean(std::string(key), settable_keys(*registry_)));
  }
  toml::table parsed = parse_override_value(value, origin);
  toml::table* table = &table_;
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    auto* next = table->get(segments[i]);
    if (next == nullptr) {
      table->insert(segments[i], toml::table{});
      next = table->get(segments[i]);
    }
    if (!next->is_table()) {
      throw InputError(SourcePos{origin}, std::string(key), std::string(value),
                       "a key inside a table, but '" + segments[i] + "' is not a table");
    }
    table = next->as_table();
  }
  auto* node = parsed.get("value");
  // A moved node keeps the position the parser gave it; a string we built has none, so mark it by hand.
  if (node->source().begin.line == 0) {
    std::string text;
    if (const auto* as_string = node->as_string()) text = as_string->get();
    table->insert_or_assign(segments.back(), toml::value<std::string>(text));
  } else {
    table->insert_or_assign(segments.back(), std::move(*node));
  }
  override_texts_[std::string(key)] = origin;
}

std::optional<std::string> override_value_problem(const KeyRegistry& registry, std::string_view key,
                                                  std::string_view value) {
  const KeySpec* spec = registry.find(split_key_path(key));
  if (spec == nullptr || spec->kind == ValueKind::section || spec->kind == ValueKind::section_array) {
    return "a known " + registry.file_kind() + " key (see `roofsim list --keys`)" +
           did_you_mean(std::string(key), settable_keys(registry));
  }
  const toml::table parsed = parse_override_value(value, "--set " + std::string(key) + "=" + std::string(value));
  return value_problem(*parsed.get("value"), *spec);
}

void ConfigDocument::check() const {
  std::vector<std::string> segments;
  check_table(table_, segments, "");
}

void ConfigDocument::check_table(const toml::table& table, std::vector<std::string>& segments,
                                 const std::string& path) const {
  for (const auto& key : source_ordered_keys(table)) {
    const toml::node& node = *table.get(key);
    const std::string key_path = join_path(path, key);
    segments.push_back(key);
    const KeySpec* spec = registry_->find(segments);
    if (spec == nullptr) {
      std::string known;
      std::vector<std::string> siblings;
      segments.pop_back();
      for (const KeySpec* child : registry_->children_of(segments)) {
        const auto last = split_key_path(child->path).back();
        if (!known.empty()) known += ", ";
        known += last;
        siblings.push_back(last);
      }
      throw InputError(pos_override_aware(node, key_path), key_path, value_text(node),
                       "a known key of the " + registry_->file_kind() + " file" +
                           (known.empty() ? std::string() : " here (one of: " + known + ")") +
                           did_you_mean(key, siblings));
    }
    if (spec->kind == ValueKind::section) {
      if (!node.is_table()) throw InputError(pos_override_aware(node, key_path), key_path, value_text(node), "a table");
      check_table(*node.as_table(), segments, key_path);
    } else if (spec->kind == ValueKind::section_array) {
      const auto* array = node.as_array();
      if (array == nullptr || !array->is_array_of_tables()) {
        throw InputError(pos_override_aware(node, key_path), key_path, value_text(node), kinds_expected(*spec));
      }
      segments.push_back("[]");
      for (std::size_t i = 0; i < array->size(); ++i) {
        check_table(*array->get(i)->as_table(), segments, key_path + "[" + std::to_string(i) + "]");
      }
      segments.pop_back();
    } else {
      check_value(node, *spec, key_path);
    }
    segments.pop_back();
  }
  // Required keys of this table.
  for (const KeySpec* child : registry_->children_of(segments)) {
    if (child->presence != Presence::required) continue;
    const auto last = split_key_path(child->path).back();
    if (last.front() == '<') continue;
    if (table.get(last) == nullptr) {
      const SourcePos where = table.source().begin.line == 0 ? SourcePos{file_name_} : pos_of(table);
      throw InputError(where, join_path(path, last), "(missing)", "a required key: " + std::string(child->description));
    }
  }
}

SourcePos ConfigDocument::pos_override_aware(const toml::node& node, const std::string& key_path) const {
  const auto found = override_texts_.find(key_path);
  if (found != override_texts_.end()) return SourcePos{found->second};
  return pos_of(node);
}

void ConfigDocument::check_value(const toml::node& node, const KeySpec& spec, const std::string& path) const {
  if (const auto problem = value_problem(node, spec)) {
    throw InputError(pos_override_aware(node, path), path, value_text(node), *problem);
  }
}

ConfigSection ConfigDocument::root() const {
  return ConfigSection(*this, table_, "");
}

ConfigSection::ConfigSection(const ConfigDocument& document, const toml::table& table, std::string path)
    : document_(&document), table_(&table), path_(std::move(path)) {}

std::string ConfigSection::name() const {
  const auto dot = path_.rfind('.');
  return dot == std::string::npos ? path_ : path_.substr(dot + 1);
}

std::string ConfigSection::key_path(std::string_view key) const {
  return join_path(path_, key);
}

bool ConfigSection::has(std::string_view key) const {
  return table_->get(key) != nullptr;
}

std::vector<std::string> ConfigSection::keys() const {
  return source_ordered_keys(*table_);
}

const toml::node* ConfigSection::node(std::string_view key) const {
  return table_->get(key);
}

std::optional<ConfigSection> ConfigSection::child(std::string_view key) const {
  const auto* found = table_->get(key);
  if (found == nullptr || !found->is_table()) return std::nullopt;
  return ConfigSection(*document_, *found->as_table(), key_path(key));
}

ConfigSection ConfigSection::child_or_defaults(std::string_view key) const {
  static const toml::table kEmpty;
  if (auto found = child(key)) return *found;
  return ConfigSection(*document_, kEmpty, key_path(key));
}

std::vector<ConfigSection> ConfigSection::children() const {
  std::vector<ConfigSection> result;
  for (const auto& key : keys()) {
    const auto* found = table_->get(key);
    if (found->is_table()) result.emplace_back(*document_, *found->as_table(), key_path(key));
  }
  return result;
}

std::vector<ConfigSection> ConfigSection::elements(std::string_view key) const {
  std::vector<ConfigSection> result;
  const auto* found = table_->get(key);
  if (found == nullptr || !found->is_array()) return result;
  const auto& array = *found->as_array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (const auto* table = array.get(i)->as_table()) {
      result.emplace_back(*document_, *table, key_path(key) + "[" + std::to_string(i) + "]");
    }
  }
  return result;
}

SourcePos ConfigSection::pos(std::string_view key) const {
  const auto* found = key.empty() ? nullptr : table_->get(key);
  if (found != nullptr) return document_->pos_override_aware(*found, key_path(key));
  if (table_->source().begin.line == 0) return SourcePos{document_->file_name()};
  return document_->pos_of(*table_);
}

namespace {

// Array indices "ops[3]" become "[]" segments for the registry.
std::vector<std::string> registry_segments(const std::string& path) {
  std::vector<std::string> segments;
  if (path.empty()) return segments;
  for (auto segment : split_key_path(path)) {
    const auto bracket = segment.find('[');
    if (bracket != std::string::npos) {
      segments.push_back(segment.substr(0, bracket));
      segments.emplace_back("[]");
    } else {
      segments.push_back(std::move(segment));
    }
  }
  return segments;
}

}  // namespace

const KeySpec* ConfigSection::spec(std::string_view key) const {
  return document_->registry().find(registry_segments(key_path(key)));
}

std::vector<std::string> ConfigSection::segments() const {
  return registry_segments(path_);
}

std::optional<std::string> ConfigSection::raw_text(std::string_view key) const {
  if (const auto* found = table_->get(key)) {
    if (const auto* text = found->as_string()) return text->get();
    return value_text(*found);
  }
  const KeySpec* key_spec = spec(key);
  if (key_spec != nullptr && !key_spec->default_value.empty()) return std::string(key_spec->default_value);
  return std::nullopt;
}

void ConfigSection::fail(std::string_view key, const std::string& expected) const {
  const auto* found = table_->get(key);
  throw InputError(pos(key), key_path(key), found != nullptr ? value_text(*found) : "(missing)", expected);
}

void ConfigSection::fail_message(const std::string& message) const {
  throw InputError(pos(), (path_.empty() ? "" : "in [" + path_ + "]: ") + message);
}

std::optional<double> ConfigSection::optional_quantity(std::string_view key, QuantityKind kind) const {
  const auto text = raw_text(key);
  if (!text) return std::nullopt;
  const auto parsed = parse_quantity(*text, kind);
  if (!parsed || parsed->in_cycles) fail(key, expected_text(kind));
  return within_range(key, parsed->value);
}

double ConfigSection::quantity(std::string_view key, QuantityKind kind) const {
  const auto value = optional_quantity(key, kind);
  if (!value) fail(key, expected_text(kind));
  return *value;
}

std::optional<Bytes> ConfigSection::optional_bytes(std::string_view key) const {
  const auto text = raw_text(key);
  if (!text) return std::nullopt;
  const auto parsed = parse_bytes(*text);
  if (!parsed) fail(key, expected_text(QuantityKind::bytes));
  within_range(key, static_cast<double>(*parsed));
  return parsed;
}

Bytes ConfigSection::bytes(std::string_view key) const {
  const auto value = optional_bytes(key);
  if (!value) fail(key, expected_text(QuantityKind::bytes));
  return *value;
}

Seconds ConfigSection::time(std::string_view key, Hertz clock_hz) const {
  const auto text = raw_text(key);
  if (!text) fail(key, expected_text(QuantityKind::time));
  const auto parsed = parse_quantity(*text, QuantityKind::time);
  if (!parsed || parsed->value < 0) fail(key, expected_text(QuantityKind::time));
  if (!parsed->in_cycles) return within_range(key, parsed->value);
  if (clock_hz <= 0) fail(key, "a time in s, ms, us, ns or ps (no clock is known here for cycles)");
  return within_range(key, parsed->value / clock_hz);
}

std::optional<std::int64_t> ConfigSection::optional_integer(std::string_view key) const {
  std::optional<std::int64_t> value;
  if (const auto* found = table_->get(key)) {
    if (!found->is_integer()) fail(key, "an integer");
    value = found->as_integer()->get();
  } else if (const KeySpec* key_spec = spec(key); key_spec != nullptr && !key_spec->default_value.empty()) {
    value = std::stoll(std::string(key_spec->default_value));
  }
  if (value) within_range(key, static_cast<double>(*value));
  return value;
}

std::int64_t ConfigSection::integer(std::string_view key) const {
  const auto value = optional_integer(key);
  if (!value) fail(key, "an integer");
  return *value;
}

std::uint64_t ConfigSection::count(std::string_view key) const {
  const auto value = integer(key);
  if (value <= 0) fail(key, "an integer greater than 0");
  return static_cast<std::uint64_t>(value);
}

double ConfigSection::real(std::string_view key) const {
  if (const auto* found = table_->get(key)) {
    if (!found->is_number()) fail(key, "a number");
    return within_range(key, number_of(*found));
  }
  const KeySpec* key_spec = spec(key);
  if (key_spec != nullptr && !key_spec->default_value.empty()) {
    return within_range(key, std::stod(std::string(key_spec->default_value)));
  }
  fail(key, "a number");
}

std::optional<std::string> ConfigSection::range_problem(std::string_view key, double value) const {
  const KeySpec* key_spec = spec(key);
  if (key_spec == nullptr || !key_spec->range || key_spec->range->contains(value)) return std::nullopt;
  return range_expectation(*key_spec);
}

double ConfigSection::within_range(std::string_view key, double value) const {
  if (const auto problem = range_problem(key, value)) fail(key, *problem);
  return value;
}

std::optional<std::string> ConfigSection::optional_text(std::string_view key) const {
  if (const auto* found = table_->get(key)) {
    if (!found->is_string()) fail(key, "a string");
    return found->as_string()->get();
  }
  const KeySpec* key_spec = spec(key);
  if (key_spec != nullptr && !key_spec->default_value.empty()) return std::string(key_spec->default_value);
  return std::nullopt;
}

std::string ConfigSection::text(std::string_view key) const {
  auto value = optional_text(key);
  if (!value) fail(key, "a string");
  return *value;
}

bool ConfigSection::flag(std::string_view key) const {
  if (const auto* found = table_->get(key)) {
    if (!found->is_boolean()) fail(key, "true or false");
    return found->as_boolean()->get();
  }
  const KeySpec* key_spec = spec(key);
  return key_spec != nullptr && key_spec->default_value == "true";
}

std::vector<std::string> ConfigSection::text_list(std::string_view key) const {
  std::vector<std::string> result;
  const auto* found = table_->get(key);
  if (found == nullptr) return result;
  const auto* array = found->as_array();
  if (array == nullptr) fail(key, "an array of strings");
  for (const auto& element : *array) {
    if (!element.is_string()) fail(key, "an array of strings");
    result.push_back(element.as_string()->get());
  }
  return result;
}

}  // namespace roofsim
