#include "sim/report/dram_trace_writer.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

namespace roofsim {

namespace {

std::uint64_t cycle_of(TimeFs arrival_fs, Seconds cycle_s) {
  return cycle_s > 0 ? static_cast<std::uint64_t>(std::llround(fs_to_seconds(arrival_fs) / cycle_s)) : 0;
}

}  // namespace

void write_dram_trace(std::ostream& out, const DramRequests& requests, DramTraceFormat format, Seconds cycle_s,
                      Bytes line_bytes) {
  line_bytes = std::max<Bytes>(1, line_bytes);
  fmt::memory_buffer buffer;
  const auto flush = [&]() {
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  };
  for (const auto& request : requests) {
    const Bytes pieces = (std::max<Bytes>(1, request.bytes) + line_bytes - 1) / line_bytes;
    switch (format) {
      case DramTraceFormat::automatic:
      case DramTraceFormat::roofsim:
        // The shortest decimal that reads back as the same double, so the femtoseconds round trip.
        fmt::format_to(std::back_inserter(buffer), "{} {} {:#x} {}\n", static_cast<double>(request.arrival_fs) / 1e6,
                       request.write ? 'W' : 'R', request.address, request.bytes);
        break;
      case DramTraceFormat::ramulator:
        for (Bytes i = 0; i < pieces; ++i) {
          fmt::format_to(std::back_inserter(buffer), "{} {:#x}\n", request.write ? "ST" : "LD",
                         request.address + i * line_bytes);
        }
        break;
      case DramTraceFormat::dramsim3:
        for (Bytes i = 0; i < pieces; ++i) {
          fmt::format_to(std::back_inserter(buffer), "{:#x} {} {}\n", request.address + i * line_bytes,
                         request.write ? "WRITE" : "READ", cycle_of(request.arrival_fs, cycle_s));
        }
        break;
      case DramTraceFormat::dramsys:
        fmt::format_to(std::back_inserter(buffer), "{}: ({}) {} {:#x}\n", cycle_of(request.arrival_fs, cycle_s),
                       request.bytes, request.write ? "write" : "read", request.address);
        break;
    }
    if (buffer.size() > (1U << 16)) flush();
  }
  flush();
}

}  // namespace roofsim
