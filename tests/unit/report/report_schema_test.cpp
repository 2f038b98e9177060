// report.json against docs/report.schema.json: the writer's output conforms, and the validator catches what the schema
// forbids (so a passing check means something).
#include <doctest/doctest.h>

#include <functional>
#include <sstream>

#include "sim/report/report_writers.h"
#include "tests/support/json_schema.h"
#include "tests/support/test_paths.h"
#include "tests/unit/report/report_fixture.h"

using namespace roofsim;
using Json = nlohmann::json;

namespace {

Json schema() {
  return Json::parse(test::read_file(test::source_dir() / "docs" / "report.schema.json"));
}

Json sample_json() {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.provenance.command_line = "roofsim run --hw H100-SXM5 --workload gemm --set power.cap=450W";
  report.provenance.overrides = {"power.cap=450W"};
  report.provenance.inputs = {{"hardware", "/x/H100-SXM5.toml", std::string(64, 'a')}};
  report.dram = DramModelInfo{"detailed", "HBM3-6400"};
  return Json::parse(report_json(report).dump());
}

}  // namespace

TEST_CASE("report.json of the writer conforms to docs/report.schema.json and names its versions and inputs") {
  const auto document = sample_json();
  const auto errors = test::schema_errors(schema(), document);
  for (const auto& error : errors) INFO(error);
  CHECK(errors.empty());
  CHECK(document["schema_version"] == kReportSchemaVersion);
  CHECK_FALSE(document["roofsim_version"].get<std::string>().empty());
  CHECK(document["overrides"][0] == "power.cap=450W");
  CHECK(document["dram"]["model"] == "detailed");
}

TEST_CASE("the schema validator rejects a key with a space, a missing key, a wrong type, a bad digest and -1 bytes") {
  const auto s = schema();
  auto spaced = sample_json();
  spaced["device"]["bandwidth_bytes_per_s"]["dram all-hit"] = 1.0;
  CHECK_FALSE(test::schema_errors(s, spaced).empty());
  auto missing = sample_json();
  missing.erase("schema_version");
  CHECK_FALSE(test::schema_errors(s, missing).empty());
  auto wrong_type = sample_json();
  wrong_type["ops"][0]["sim_time_s"] = "fast";
  CHECK_FALSE(test::schema_errors(s, wrong_type).empty());
  auto bad_digest = sample_json();
  bad_digest["inputs"][0]["sha256"] = "abc";
  CHECK_FALSE(test::schema_errors(s, bad_digest).empty());
  auto negative = sample_json();
  negative["ops"][0]["bytes"]["dram"] = -1;
  CHECK_FALSE(test::schema_errors(s, negative).empty());
  auto unknown = sample_json();
  unknown["ops"][0]["surprise"] = 1;
  CHECK_FALSE(test::schema_errors(s, unknown).empty());
}

TEST_CASE("report.json: bandwidth names become snake_case keys and no number is -0") {
  const auto device = test::h100_like_device();
  auto report = test::sample_report(device);
  report.ops[0].extra["gap"] = {{"ceiling_time_s", 1.0},
                                {"sim_time_s", 1.0},
                                {"gap_s", -0.0},
                                {"ceiling_taken_from", "compute"},
                                {"causes_s", {{"ahead_of_ceiling", -0.0}}}};
  const auto text = report_json(report).dump();
  CHECK(text.find("-0.0") == std::string::npos);
  CHECK(text.find("all-hit") == std::string::npos);
  std::function<void(const nlohmann::ordered_json&)> keys_without_spaces = [&](const nlohmann::ordered_json& value) {
    if (!value.is_structured()) return;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (value.is_object()) CHECK(it.key().find(' ') == std::string::npos);
      keys_without_spaces(*it);
    }
  };
  keys_without_spaces(report_json(report));
}

TEST_CASE("out_folder_of finds --out in a command line, quoted or not") {
  CHECK(test::out_folder_of("run --hw X --out /tmp/a b") == "/tmp/a");
  CHECK(test::out_folder_of("run --out '/tmp/with space' --hw X") == "/tmp/with space");
  CHECK(test::out_folder_of("run --out=/tmp/c") == "/tmp/c");
  CHECK(test::out_folder_of("run --outer x").empty());
}
