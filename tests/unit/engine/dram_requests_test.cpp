// The request lists `roofsim dram` runs: a trace file read line by line into requests, and the generated patterns'
// addresses and read/write mix.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/input_error.h"
#include "sim/engine/dram_run.h"
#include "sim/engine/dram_trace_reader.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("a DRAM trace: times in ns, R/W in either case, hex addresses with or without 0x, sizes optional") {
  const auto file = test::write_file(test::scratch_dir("dram_trace_reader") / "trace.txt",
                                     "# time_ns kind address [bytes]\n\n"
                                     "0 R 0x0\n"
                                     "2.5 w 40 128  # two bursts\n"
                                     "10 r 0XFFC0\n");
  const auto requests = read_dram_trace(file.string(), 64);
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].arrival_fs == 0);
  CHECK(requests[0].address == 0);
  CHECK(!requests[0].write);
  CHECK(requests[0].bytes == 64);
  CHECK(requests[1].arrival_fs == 2500000);  // 2.5 ns
  CHECK(requests[1].address == 0x40);
  CHECK(requests[1].write);
  CHECK(requests[1].bytes == 128);
  CHECK(requests[2].address == 0xFFC0);
}

TEST_CASE("a DRAM trace line out of time order is an input error naming the file and the line") {
  const auto file =
      test::write_file(test::scratch_dir("dram_trace_reader_order") / "trace.txt", "10 R 0x0\n5 R 0x40\n");
  try {
    (void)read_dram_trace(file.string(), 64);
    FAIL("no error");
  } catch (const InputError& error) {
    const std::string message = error.what();
    CHECK(message.find(file.string()) != std::string::npos);
    CHECK(message.find("line 2") != std::string::npos);
  }
}

TEST_CASE("a DRAM trace line beyond the clock, the size limit or the address space is an input error at its line") {
  const auto dir = test::scratch_dir("dram_trace_reader_bounds");
  const auto line_of_error = [&](const std::string& name, const std::string& text) -> std::string {
    const auto file = test::write_file(dir / name, text);
    try {
      (void)read_dram_trace(file.string(), 64);
    } catch (const InputError& error) {
      const std::string message = error.what();
      return message.find("line 2") != std::string::npos ? "line 2" : message;
    }
    return "accepted";
  };
  // 2^63 fs is 9.22e12 ns: the last time the femtosecond clock holds with room to round.
  CHECK(line_of_error("time_ok.txt", "0 R 0x0\n9.1e12 R 0x40\n") == "accepted");
  CHECK(line_of_error("time_far.txt", "0 R 0x0\n9.3e12 R 0x40\n") == "line 2");
  CHECK(line_of_error("time_huge.txt", "0 R 0x0\n1e300 R 0x40\n") == "line 2");
  CHECK(line_of_error("bytes_at_limit.txt", "0 R 0x0\n1 R 0x40 1073741824\n") == "accepted");
  CHECK(line_of_error("bytes_over.txt", "0 R 0x0\n1 R 0x40 1073741825\n") == "line 2");
  CHECK(line_of_error("bytes_max.txt", "0 R 0x0\n1 R 0x40 18446744073709551615\n") == "line 2");
  // The last 64 bytes of the address space, and one byte past them.
  CHECK(line_of_error("end.txt", "0 R 0x0\n1 R 0xffffffffffffffc0 64\n") == "accepted");
  CHECK(line_of_error("past_end.txt", "0 R 0x0\n1 R 0xffffffffffffffc0 65\n") == "line 2");
}

TEST_CASE("DRAM patterns: stream and strided addresses, one request per request size, the asked read share") {
  DramPattern pattern;
  pattern.kind = "stream";
  pattern.total_bytes = 1000;  // rounds up to 16 requests of 64 B
  pattern.request_bytes = 64;
  const auto stream = make_pattern_requests(pattern);
  REQUIRE(stream.size() == 16);
  for (std::size_t i = 0; i < stream.size(); ++i) {
    CHECK(stream[i].address == i * 64);
    CHECK(stream[i].arrival_fs == 0);
    CHECK(!stream[i].write);
  }

  pattern.kind = "strided";
  pattern.stride_bytes = 4096;
  const auto strided = make_pattern_requests(pattern);
  CHECK(strided[3].address == 3 * 4096);

  pattern.kind = "random";
  pattern.total_bytes = 64 * 10000;
  pattern.footprint_bytes = 1 << 20;
  pattern.read_ratio = 0.75;
  const auto random = make_pattern_requests(pattern);
  std::size_t writes = 0;
  for (const auto& request : random) {
    CHECK(request.address < pattern.footprint_bytes);
    CHECK(request.address % 64 == 0);
    if (request.write) ++writes;
  }
  CHECK(static_cast<double>(writes) / static_cast<double>(random.size()) == doctest::Approx(0.25).epsilon(0.05));
  // The same seed gives the same requests.
  const auto again = make_pattern_requests(pattern);
  CHECK(again.back().address == random.back().address);
}
