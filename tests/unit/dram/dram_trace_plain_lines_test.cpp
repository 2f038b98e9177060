// The trace reader reads a plain roofsim line (`<ns> <R|W> <hex> [bytes]`, no comment) in one pass and any other line
// with the general parser: a line with a comment appended goes the general way, so the two must agree on every line,
// accepted (the same request and time) or refused (an InputError).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "sim/core/input_error.h"
#include "sim/engine/dram_trace_reader.h"

using namespace roofsim;

namespace {

std::optional<DramRequests> parsed(const std::string& text) {
  DramTraceOptions options;
  options.format = DramTraceFormat::roofsim;
  options.default_bytes = 48;
  try {
    return parse_dram_trace(text, "trace.txt", options);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace

TEST_CASE("a plain roofsim line reads as the general parser reads it") {
  const char* const lines[] = {
      "0 R 0x40",
      "12 w 0X1F 128",
      "\t5\tR\t40\t",
      "7 R 0x40 64\r",
      "3 W 0xABCDEF0123 4096",
      "999999999999999 R 0xfffffffffffffffe 2",
      "1 R 0xffffffffffffffff 2",
      "1 R 0x 64",
      "1 X 0x40",
      "1 R 0x40 0",
      "1 R 0x40 64 9",
      "1234567890123456 R 0x40",
      "1 R 0x10000000000000000",
      "1 R 00000000000000000001",
      "1.5 R 0x40",
      "1e3 R 0x40",
      "1 R 0x40 1073741825",
      "1 R 0x40 1073741824",
      "1 R0x40",
      "1 R 0x4g",
      "-1 R 0x40",
      "1 RW 0x40",
      "9200000000000000 R 0x40",
      "1 R 0x40 00000000000000000064",
  };
  for (const std::string line : lines) {
    CAPTURE(line);
    const auto plain = parsed(line + "\n");
    const auto general = parsed(line + " # a comment\n");
    REQUIRE(plain.has_value() == general.has_value());
    if (!plain) continue;
    REQUIRE(plain->size() == 1);
    REQUIRE(general->size() == 1);
    CHECK(plain->front().address == general->front().address);
    CHECK(plain->front().bytes == general->front().bytes);
    CHECK(plain->front().write == general->front().write);
    CHECK(plain->front().arrival_fs == general->front().arrival_fs);
  }
  // A time below the previous line's is refused either way.
  CHECK_FALSE(parsed("5 R 0x40\n4 R 0x80\n").has_value());
  CHECK_FALSE(parsed("5 R 0x40 #\n4 R 0x80 #\n").has_value());
  // The values themselves: 7 ns is 7e6 fs; a line without a size takes the default.
  const auto two = parsed("7 W 0x1f00 128\n8 r 40\n");
  REQUIRE(two.has_value());
  REQUIRE(two->size() == 2);
  CHECK((*two)[0].arrival_fs == 7'000'000);
  CHECK((*two)[0].write);
  CHECK((*two)[0].address == 0x1f00);
  CHECK((*two)[0].bytes == 128);
  CHECK((*two)[1].address == 0x40);
  CHECK((*two)[1].bytes == 48);
  CHECK_FALSE((*two)[1].write);
}
