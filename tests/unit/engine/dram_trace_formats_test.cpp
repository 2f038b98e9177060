// The peer simulators' trace formats `roofsim dram` reads (Ramulator 2, DRAMsim3, DRAMSys STL) and writes: each read
// on its own and detected from its first line, a malformed line named, and every format written then read back into
// the same requests.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "sim/core/input_error.h"
#include "sim/engine/dram_trace_reader.h"
#include "sim/report/dram_trace_writer.h"

using namespace roofsim;

namespace {

DramTraceOptions options(DramTraceFormat format = DramTraceFormat::automatic) {
  DramTraceOptions result;
  result.format = format;
  result.default_bytes = 64;
  result.cycle_s = 1e-9;  // HBM2-2000's tCK
  return result;
}

}  // namespace

TEST_CASE("the first request line tells the format") {
  CHECK(detect_dram_trace_format("0 R 0x40") == DramTraceFormat::roofsim);
  CHECK(detect_dram_trace_format("LD 0x40") == DramTraceFormat::ramulator);
  CHECK(detect_dram_trace_format("0x40 READ 3") == DramTraceFormat::dramsim3);
  CHECK(detect_dram_trace_format("3: read 0x40") == DramTraceFormat::dramsys);
  CHECK_FALSE(detect_dram_trace_format("hello world").has_value());
}

TEST_CASE("Ramulator 2, DRAMsim3 and DRAMSys traces: kinds, addresses, sizes and times in cycles of the DRAM clock") {
  const auto ramulator = parse_dram_trace("# comment\nLD 0x1000\nST 4096\n", "r.trace", options());
  REQUIRE(ramulator.size() == 2);
  CHECK(!ramulator[0].write);
  CHECK(ramulator[0].address == 0x1000);
  CHECK(ramulator[1].write);
  CHECK(ramulator[1].address == 4096);  // decimal without 0x
  CHECK(ramulator[1].arrival_fs == 0);

  const auto dramsim3 = parse_dram_trace("0x40 READ 10\n80 WRITE 12\n0x0 P_MEM_RD 12\n", "d.trace", options());
  REQUIRE(dramsim3.size() == 3);
  CHECK(dramsim3[0].arrival_fs == 10'000'000);  // 10 cycles of 1 ns
  CHECK(dramsim3[1].write);
  CHECK(dramsim3[1].address == 0x80);  // hex without 0x
  CHECK(dramsim3[2].bytes == 64);

  const auto dramsys = parse_dram_trace("5:\tread\t0x100\n7: (32) write 0x200 0x0102\n", "t.stl", options());
  REQUIRE(dramsys.size() == 2);
  CHECK(dramsys[0].arrival_fs == 5'000'000);
  CHECK(dramsys[0].bytes == 64);
  CHECK(dramsys[1].write);
  CHECK(dramsys[1].bytes == 32);
  CHECK(dramsys[1].address == 0x200);
}

TEST_CASE("a malformed line of a peer's trace is an input error naming the file, the line and the format") {
  const auto message = [](const std::string& text, DramTraceFormat format) {
    try {
      (void)parse_dram_trace(text, "peer.trace", options(format));
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const auto ramulator = message("LD 0x0\nLOAD 0x40\n", DramTraceFormat::automatic);
  CHECK(ramulator.find("peer.trace") != std::string::npos);
  CHECK(ramulator.find("line 2") != std::string::npos);
  CHECK(ramulator.find("Ramulator") != std::string::npos);
  CHECK(message("0x0 READ 5\n0x40 READ 4\n", DramTraceFormat::dramsim3).find("line 2") != std::string::npos);
  CHECK(message("5: fetch 0x0\n", DramTraceFormat::dramsys).find("STL") != std::string::npos);
  CHECK(message("LD 0x0\n", DramTraceFormat::roofsim).find("line 1") != std::string::npos);
}

TEST_CASE("each format written and read back gives the same requests where it keeps what they carry") {
  // Times on whole cycles, 64-byte requests: every format keeps them (ramulator keeps no time: all at 0).
  DramRequests requests;
  for (std::uint64_t i = 0; i < 50; ++i) {
    requests.push_back(DramRequest{(i * 7919 % 1000) * 64, 64, i % 3 == 0, i * 2'000'000});
  }
  for (const auto format :
       {DramTraceFormat::roofsim, DramTraceFormat::ramulator, DramTraceFormat::dramsim3, DramTraceFormat::dramsys}) {
    CAPTURE(dram_trace_format_name(format));
    std::ostringstream out;
    write_dram_trace(out, requests, format, 1e-9, 64);
    const auto back = parse_dram_trace(out.str(), "converted", options());
    REQUIRE(back.size() == requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      CHECK(back[i].address == requests[i].address);
      CHECK(back[i].write == requests[i].write);
      CHECK(back[i].bytes == requests[i].bytes);
      CHECK(back[i].arrival_fs == (format == DramTraceFormat::ramulator ? 0 : requests[i].arrival_fs));
    }
  }
  // roofsim's own format keeps any time and size; the others split a request into lines of the given size.
  const DramRequests odd = {DramRequest{0x40, 200, false, 1234567}};
  std::ostringstream own, pieces;
  write_dram_trace(own, odd, DramTraceFormat::roofsim, 1e-9, 64);
  const auto own_back = parse_dram_trace(own.str(), "own", options());
  REQUIRE(own_back.size() == 1);
  CHECK(own_back[0].arrival_fs == 1234567);
  CHECK(own_back[0].bytes == 200);
  write_dram_trace(pieces, odd, DramTraceFormat::dramsim3, 1e-9, 64);
  const auto split = parse_dram_trace(pieces.str(), "pieces", options());
  REQUIRE(split.size() == 4);
  CHECK(split[3].address == 0x40 + 3 * 64);
}
