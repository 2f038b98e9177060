// Bad input, one test per error class: `roofsim validate FILE` exits with 2 and its message names the file,
// the line and column of the offending text, and the key.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// A small valid SRAM-only device; each test breaks one line of it.
constexpr const char* kValidDevice = R"([device]
name = "tiny"

[compute]
units = 4

[compute.engines.vector]
clock = "1GHz"

[compute.engines.vector.flops_per_cycle]
fp32 = 64

[memory.sram]
scope = "device"
capacity = "64KiB"
line_size = "128B"
bytes_per_cycle = 64
clock = "1GHz"
latency = "10cycles"
)";

std::string replace_line(std::string text, const std::string& line, const std::string& replacement) {
  const auto at = text.find(line);
  REQUIRE_MESSAGE(at != std::string::npos, "the valid device has no line '" << line << "'");
  return text.replace(at, line.size(), replacement);
}

// 1-based line of the first occurrence of `needle`.
int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

// Writes `text`, validates it, and checks exit code 2 and a message "<file>:<line>:<col>: ... <key> ...".
void expect_input_error(const std::string& name, const std::string& text, const std::string& located_at,
                        const std::string& key, const std::string& expectation = {}) {
  const auto file = test::scratch_dir("config-errors-" + name) / (name + ".toml");
  std::ofstream(file) << text;
  const auto result = test::run_roofsim("validate '" + file.string() + "'");
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  const std::string position = file.string() + ":" + std::to_string(line_of(text, located_at)) + ":";
  CHECK(result.err.find(position) != std::string::npos);
  CHECK(result.err.find(key) != std::string::npos);
  CHECK(result.err.find(expectation) != std::string::npos);
}

}  // namespace

TEST_CASE("the valid device used by these tests validates") {
  const auto file = test::scratch_dir("config-errors-valid") / "valid.toml";
  std::ofstream(file) << kValidDevice;
  const auto result = test::run_roofsim("validate '" + file.string() + "'");
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 0);
}

TEST_CASE("malformed TOML: the position of the syntax error and the line holding the key") {
  const auto text = replace_line(kValidDevice, "units = 4", "units = ");
  expect_input_error("malformed", text, "units = ", "units");
}

TEST_CASE("malformed TOML: an unclosed table header") {
  const auto text = replace_line(kValidDevice, "[memory.sram]", "[memory.sram");
  expect_input_error("unclosed-header", text, "[memory.sram", "memory.sram");
}

TEST_CASE("unknown key") {
  const auto text = replace_line(kValidDevice, "units = 4", "units = 4\nunitz = 4");
  expect_input_error("unknown-key", text, "unitz", "compute.unitz", "one of: units");
}

TEST_CASE("missing required key: reported at its table") {
  const auto text = replace_line(kValidDevice, "units = 4\n", "");
  expect_input_error("missing-key", text, "[compute]", "compute.units", "required");
}

TEST_CASE("wrong type: a string where a count belongs") {
  const auto text = replace_line(kValidDevice, "units = 4", "units = \"4\"");
  expect_input_error("wrong-type", text, "units = \"4\"", "compute.units");
}

TEST_CASE("wrong type: a table where a value belongs") {
  const auto text = replace_line(kValidDevice, "name = \"tiny\"", "name = { first = \"tiny\" }");
  expect_input_error("wrong-type-table", text, "name = {", "device.name");
}

TEST_CASE("wrong unit: a frequency where a capacity belongs") {
  const auto text = replace_line(kValidDevice, "capacity = \"64KiB\"", "capacity = \"64GHz\"");
  expect_input_error("wrong-unit", text, "capacity = \"64GHz\"", "memory.sram.capacity");
}

TEST_CASE("missing unit: a bare number for a clock") {
  const auto text = replace_line(kValidDevice, "clock = \"1GHz\"\n\n[compute", "clock = \"1000000000\"\n\n[compute");
  expect_input_error("missing-unit", text, "clock = \"1000000000\"", "compute.engines.vector.clock");
}

TEST_CASE("missing unit: a bare integer for a capacity") {
  const auto text = replace_line(kValidDevice, "capacity = \"64KiB\"", "capacity = 65536");
  expect_input_error("missing-unit-integer", text, "capacity = 65536", "memory.sram.capacity");
}

TEST_CASE("non-positive size: a zero capacity") {
  const auto text = replace_line(kValidDevice, "capacity = \"64KiB\"", "capacity = \"0B\"");
  expect_input_error("zero-size", text, "capacity = \"0B\"", "memory.sram.capacity", "greater than 0");
}

TEST_CASE("non-positive size: a negative capacity") {
  const auto text = replace_line(kValidDevice, "capacity = \"64KiB\"", "capacity = \"-64KiB\"");
  expect_input_error("negative-size", text, "capacity = \"-64KiB\"", "memory.sram.capacity", "not negative");
}

TEST_CASE("non-positive count: zero compute units") {
  const auto text = replace_line(kValidDevice, "units = 4", "units = 0");
  expect_input_error("zero-units", text, "units = 0", "compute.units");
}

TEST_CASE("inconsistent values: a line size that does not divide the capacity") {
  const auto text = replace_line(kValidDevice, "line_size = \"128B\"", "line_size = \"96B\"");
  expect_input_error("line-size", text, "line_size = \"96B\"", "memory.sram.line_size", "divides memory.sram.capacity");
}

TEST_CASE("unknown DRAM standard") {
  const std::string text =
      std::string(kValidDevice) +
      "\n[dram]\nstandard = \"HBM9-99999\"\nstacks = 4\ncapacity = \"64GiB\"\nlatency = \"500ns\"\n";
  expect_input_error("unknown-dram", text, "standard = \"HBM9-99999\"", "dram.standard", "available:");
}

TEST_CASE("several files: each bad one is reported, the good ones pass, the exit code is 2") {
  const auto dir = test::scratch_dir("config-errors-several");
  std::ofstream(dir / "good.toml") << kValidDevice;
  std::ofstream(dir / "bad.toml") << replace_line(kValidDevice, "units = 4", "units = -1");
  const auto result =
      test::run_roofsim("validate '" + (dir / "good.toml").string() + "' '" + (dir / "bad.toml").string() + "'");
  CHECK(result.exit_code == 2);
  CHECK(result.out.find("good.toml: ok") != std::string::npos);
  CHECK(result.err.find("bad.toml:5:") != std::string::npos);
}
