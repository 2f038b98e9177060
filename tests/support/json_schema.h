#pragma once
// A JSON Schema (draft 2020-12) validator for the keywords docs/report.schema.json uses: $ref (to "#/$defs/..."),
// type, enum, const, properties, required, additionalProperties, propertyNames, items, allOf, pattern, minimum.
// Debian 12 packages no C++ validator (nlohmann-json has none), so the tests carry this small one; a schema using a
// keyword it does not know is refused rather than half-checked.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace roofsim::test {

// Every violation of `schema` by `document`, each as "<JSON pointer>: <what is wrong>"; empty when it conforms.
[[nodiscard]] std::vector<std::string> schema_errors(const nlohmann::json& schema, const nlohmann::json& document);

// The violations of docs/report.schema.json by a report.json file (a file that is not JSON is one error).
[[nodiscard]] std::vector<std::string> report_schema_errors(const std::filesystem::path& report_json);

// The report.json files under `dir` with their modification times.
using ReportFiles = std::map<std::filesystem::path, std::filesystem::file_time_type>;
[[nodiscard]] ReportFiles report_files_under(const std::filesystem::path& dir);

// Checks, with doctest, every report.json under `dir` (a result folder, or a sweep's folder of points) against the
// schema, but for those `before` lists unchanged (a test's own fixtures); returns how many it checked.
std::size_t check_reports_against_schema(const std::filesystem::path& dir, const ReportFiles& before = {});

// The folder a roofsim command line writes into: the value of --out (quotes removed), or "" when it has none.
[[nodiscard]] std::string out_folder_of(const std::string& args);

}  // namespace roofsim::test
