#pragma once
// Stage 1 of configuration: a TOML file parsed and checked against its KeyRegistry (unknown keys, missing required
// keys, types and units), with --set overrides applied. Nodes are moved, never copied, so every value keeps its
// source position for error messages. Stage 2 (the *_params.cpp files) fills parameter structs through
// ConfigSection::read_fields (the members the schema rows bind) and reads the remaining keys by hand.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "sim/config/key_spec.h"
#include "sim/core/input_error.h"
#include "sim/core/units.h"

namespace roofsim {

class ConfigSection;

class ConfigDocument {
 public:
  // Parses the file; a syntax error is an InputError at its position. Call check() after the overrides.
  ConfigDocument(const std::filesystem::path& file, const KeyRegistry& registry);
  // Parses text held in memory (tests, sweep points); `name` stands for the file in messages.
  ConfigDocument(std::string_view text, std::string name, const KeyRegistry& registry);

  // --set KEY=VALUE: KEY must be a key of the registry; VALUE is read as a TOML value when it is one, else as a
  // string ("450W"). Missing tables on the way are created.
  void apply_override(std::string_view key, std::string_view value);
  // Unknown keys, wrong types, wrong or missing units, missing required keys: throws InputError.
  void check() const;

  [[nodiscard]] ConfigSection root() const;
  [[nodiscard]] const std::string& file_name() const { return file_name_; }
  [[nodiscard]] const KeyRegistry& registry() const { return *registry_; }
  [[nodiscard]] SourcePos pos_of(const toml::node& node) const;
  // The position of a value, or the --set text that put it there.
  [[nodiscard]] SourcePos pos_override_aware(const toml::node& node, const std::string& key_path) const;
  [[nodiscard]] const toml::table& table() const { return table_; }

 private:
  void check_table(const toml::table& table, std::vector<std::string>& segments, const std::string& path) const;
  void check_value(const toml::node& node, const KeySpec& spec, const std::string& path) const;

  std::string file_name_;
  const KeyRegistry* registry_;
  toml::table table_;
  std::map<std::string, std::string> override_texts_;  // key path -> "--set key=value", for positions
};

// A view of one table of a checked document. Getters apply the registry's default when the key is absent; the
// quantity getters return base units. Errors name file:line:column, the key path, the value and the expectation.
class ConfigSection {
 public:
  ConfigSection(const ConfigDocument& document, const toml::table& table, std::string path);

  [[nodiscard]] const std::string& path() const { return path_; }  // "memory.l2" ("" for the root)
  [[nodiscard]] std::string name() const;                          // last segment: "l2"
  [[nodiscard]] std::string key_path(std::string_view key) const;  // "memory.l2.capacity"
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> keys() const;  // keys present, in source order
  [[nodiscard]] std::optional<ConfigSection> child(std::string_view key) const;
  // The child table, or an empty one when the file has none (every key then takes its schema default).
  [[nodiscard]] ConfigSection child_or_defaults(std::string_view key) const;
  [[nodiscard]] std::vector<ConfigSection> children() const;                      // sub-tables present, in source order
  [[nodiscard]] std::vector<ConfigSection> elements(std::string_view key) const;  // an array of tables
  [[nodiscard]] SourcePos pos(std::string_view key = {}) const;  // of the key's value, else of this table
  [[nodiscard]] const ConfigDocument& document() const { return *document_; }
  [[nodiscard]] const toml::table& table() const { return *table_; }

  [[nodiscard]] double quantity(std::string_view key, QuantityKind kind) const;
  [[nodiscard]] std::optional<double> optional_quantity(std::string_view key, QuantityKind kind) const;
  [[nodiscard]] Bytes bytes(std::string_view key) const;
  [[nodiscard]] std::optional<Bytes> optional_bytes(std::string_view key) const;
  // A time; "N cycles" is converted with the given clock (0: cycles are not allowed here).
  [[nodiscard]] Seconds time(std::string_view key, Hertz clock_hz) const;
  [[nodiscard]] std::uint64_t count(std::string_view key) const;  // > 0
  [[nodiscard]] std::int64_t integer(std::string_view key) const;
  [[nodiscard]] std::optional<std::int64_t> optional_integer(std::string_view key) const;
  [[nodiscard]] double real(std::string_view key) const;
  [[nodiscard]] std::string text(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> optional_text(std::string_view key) const;
  [[nodiscard]] bool flag(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> text_list(std::string_view key) const;
  [[nodiscard]] const toml::node* node(std::string_view key) const;  // nullptr when absent
  // What the key's value must be when `value` (in base units) is outside the key's range ("a frequency in 1 MHz ..
  // 100 GHz"); nullopt when it is inside, or the key has no range. For values computed in stage 2 (expressions).
  [[nodiscard]] std::optional<std::string> range_problem(std::string_view key, double value) const;

  // Fills every member of `params` that a row of this section's schema binds (KeySpec::field), in schema order; an
  // absent key takes its row's default, and one without a default leaves its member as it is.
  template <class Params>
  void read_fields(Params& params) const {
    for (const KeySpec* spec : document_->registry().children_of(segments())) spec->field.read(*this, *spec, params);
  }

  // Throws InputError at the key's position (or this table's when the key is absent).
  [[noreturn]] void fail(std::string_view key, const std::string& expected) const;
  [[noreturn]] void fail_message(const std::string& message) const;

 private:
  [[nodiscard]] const KeySpec* spec(std::string_view key) const;
  // This table's path as registry segments: array indices "dvfs[0]" become "dvfs", "[]".
  [[nodiscard]] std::vector<std::string> segments() const;
  [[nodiscard]] std::optional<std::string> raw_text(std::string_view key) const;  // value or default, as text
  // Returns `value` (base units), or throws InputError at the key when it is outside the key's range.
  double within_range(std::string_view key, double value) const;

  const ConfigDocument* document_;
  const toml::table* table_;
  std::string path_;
};

// Parses VALUE as `--set KEY=VALUE` does and checks it against KEY's row of `registry` (a known key, type, unit and
// range): what was expected, or nullopt when the value is acceptable. For values that are set later, such as the
// values of a sweep's axes, so that a bad one is reported at the sweep file before any point runs. A time in cycles
// and a workload expression are range-checked only where they are evaluated (their clock, their parameters).
[[nodiscard]] std::optional<std::string> override_value_problem(const KeyRegistry& registry, std::string_view key,
                                                                std::string_view value);

// Parses TOML; a syntax error is an InputError at its position that quotes the offending line.
[[nodiscard]] toml::table parse_toml_text(std::string_view text, const std::string& name);
// Reads only a regular file of at most kMaxConfigFileBytes: anything else, a missing file or a filesystem error is an
// InputError naming the path and what it should be (`kind`: "hardware", "sweep").
[[nodiscard]] toml::table parse_toml_file(const std::filesystem::path& file, const std::string& kind = "configuration");

// The text of a value for error messages: strings quoted, numbers as written.
[[nodiscard]] std::string value_text(const toml::node& node);

}  // namespace roofsim
