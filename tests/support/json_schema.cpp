#include "tests/support/json_schema.h"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "tests/support/test_paths.h"

namespace roofsim::test {

namespace {

using Json = nlohmann::json;

const std::set<std::string>& known_keywords() {
  static const std::set<std::string> keywords = {
      "$schema",       "$id",   "$defs", "title",      "description", "$ref",
      "type",          "enum",  "const", "properties", "required",    "additionalProperties",
      "propertyNames", "items", "allOf", "pattern",    "minimum"};
  return keywords;
}

std::string type_of(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "boolean";
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  if (value.is_string()) return "string";
  if (value.is_array()) return "array";
  return "object";
}

bool has_type(const Json& value, const std::string& type) {
  const std::string actual = type_of(value);
  return actual == type || (type == "number" && actual == "integer") ||
         // 3.0 is an integer to JSON Schema; nlohmann reads it as a float.
         (type == "integer" && actual == "number" &&
          value.get<double>() == static_cast<double>(static_cast<long long>(value.get<double>())));
}

class Validator {
 public:
  explicit Validator(const Json& root) : root_(root) {}

  void check(const Json& schema, const Json& value, const std::string& at) {
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) fail(at, "no value is allowed here");
      return;
    }
    for (const auto& [keyword, argument] : schema.items()) {
      if (known_keywords().count(keyword) == 0) throw std::runtime_error("schema keyword not supported: " + keyword);
    }
    if (schema.contains("$ref")) check(resolve(schema["$ref"].get<std::string>()), value, at);
    if (schema.contains("allOf")) {
      for (const auto& part : schema["allOf"]) check(part, value, at);
    }
    if (schema.contains("type")) {
      const auto& type = schema["type"];
      bool ok = false;
      if (type.is_string()) ok = has_type(value, type.get<std::string>());
      for (const auto& each : type.is_array() ? type : Json::array())
        ok = ok || has_type(value, each.get<std::string>());
      if (!ok) return fail(at, "expected type " + type.dump() + ", found " + type_of(value));
    }
    if (schema.contains("const") && schema["const"] != value) fail(at, "expected " + schema["const"].dump());
    if (schema.contains("enum")) {
      bool found = false;
      for (const auto& option : schema["enum"]) found = found || option == value;
      if (!found) fail(at, value.dump() + " is not one of " + schema["enum"].dump());
    }
    if (value.is_string() && schema.contains("pattern")) {
      if (!std::regex_search(value.get<std::string>(), compiled(schema["pattern"].get<std::string>()))) {
        fail(at, value.dump() + " does not match " + schema["pattern"].get<std::string>());
      }
    }
    if (value.is_number() && schema.contains("minimum") && value.get<double>() < schema["minimum"].get<double>()) {
      fail(at, value.dump() + " is below the minimum " + schema["minimum"].dump());
    }
    if (value.is_array() && schema.contains("items")) {
      for (std::size_t i = 0; i < value.size(); ++i) check(schema["items"], value[i], at + "/" + std::to_string(i));
    }
    if (value.is_object()) check_object(schema, value, at);
  }

  std::vector<std::string> errors;

 private:
  void fail(const std::string& at, const std::string& what) { errors.push_back((at.empty() ? "/" : at) + ": " + what); }

  // Each pattern compiled once per test process: compiling a std::regex costs more than validating a whole report.
  static const std::regex& compiled(const std::string& pattern) {
    static std::map<std::string, std::regex> patterns;
    auto it = patterns.find(pattern);
    if (it == patterns.end()) it = patterns.emplace(pattern, std::regex(pattern)).first;
    return it->second;
  }

  const Json& resolve(const std::string& ref) {
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root_["$defs"].contains(ref.substr(prefix.size()))) {
      throw std::runtime_error("schema $ref not supported or missing: " + ref);
    }
    return root_["$defs"][ref.substr(prefix.size())];
  }

  void check_object(const Json& schema, const Json& value, const std::string& at) {
    if (schema.contains("required")) {
      for (const auto& key : schema["required"]) {
        if (!value.contains(key.get<std::string>())) fail(at, "missing required key " + key.dump());
      }
    }
    static const Json no_properties = Json::object();
    const auto found = schema.find("properties");
    const Json& properties = found == schema.end() ? no_properties : *found;
    for (const auto& [key, child] : value.items()) {
      const std::string child_at = at + "/" + key;
      if (schema.contains("propertyNames")) check(schema["propertyNames"], key, child_at + " (key)");
      if (const auto property = properties.find(key); property != properties.end()) {
        check(*property, child, child_at);
      } else if (schema.contains("additionalProperties")) {
        const auto& additional = schema["additionalProperties"];
        if (additional.is_boolean() && !additional.get<bool>()) {
          fail(child_at, "key not in the schema");
        } else {
          check(additional, child, child_at);
        }
      }
    }
  }

  const Json& root_;
};

}  // namespace

std::vector<std::string> schema_errors(const Json& schema, const Json& document) {
  Validator validator(schema);
  validator.check(schema, document, "");
  return validator.errors;
}

std::vector<std::string> report_schema_errors(const std::filesystem::path& report_json) {
  static const Json schema = Json::parse(read_file(source_dir() / "docs" / "report.schema.json"));
  Json document;
  try {
    document = Json::parse(read_file(report_json));
  } catch (const Json::exception& error) {
    return {report_json.string() + ": not JSON: " + error.what()};
  }
  return schema_errors(schema, document);
}

ReportFiles report_files_under(const std::filesystem::path& dir) {
  ReportFiles files;
  std::error_code error;
  if (dir.empty() || !std::filesystem::is_directory(dir, error)) return files;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->path().filename() != "report.json" || !it->is_regular_file(error)) continue;
    files[it->path()] = std::filesystem::last_write_time(it->path(), error);
  }
  return files;
}

std::size_t check_reports_against_schema(const std::filesystem::path& dir, const ReportFiles& before) {
  std::size_t checked = 0;
  for (const auto& [file, time] : report_files_under(dir)) {
    const auto old = before.find(file);
    if (old != before.end() && old->second == time) continue;
    for (const auto& message : report_schema_errors(file)) {
      const std::string text = file.string() + ": does not conform to docs/report.schema.json: " + message;
      FAIL_CHECK(text);
    }
    ++checked;
  }
  return checked;
}

std::string out_folder_of(const std::string& args) {
  std::size_t at = args.find("--out");
  while (at != std::string::npos && at + 5 < args.size() && args[at + 5] != ' ' && args[at + 5] != '=') {
    at = args.find("--out", at + 5);
  }
  if (at == std::string::npos || at + 6 > args.size()) return "";
  std::string folder;
  char quote = 0;
  for (std::size_t i = at + 6; i < args.size(); ++i) {
    const char c = args[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        folder += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ' ') {
      if (!folder.empty()) break;
    } else {
      folder += c;
    }
  }
  return folder;
}

}  // namespace roofsim::test
