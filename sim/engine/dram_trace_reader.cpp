#include "sim/engine/dram_trace_reader.h"

#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"

namespace roofsim {

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

DramRequests read_dram_trace(const std::string& path, Bytes default_bytes) {
  check_input_file(path, "DRAM trace", kMaxDramTraceBytes);
  std::ifstream in(path);
  if (!in) throw InputError(SourcePos{path}, "cannot open this DRAM trace file");
  DramRequests requests;
  std::string line;
  std::uint32_t number = 0;
  const std::string expected =
      "a line '<time_ns> <R|W> <hex address> [bytes]', times not decreasing and below 9.2e12 ns, bytes 1 .. 2^30, "
      "the request within the 64-bit address space";
  Seconds previous_s = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto comment = line.find('#');
    if (comment != std::string::npos) line.resize(comment);
    line = trim(line);
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string time_text, kind, address_text, bytes_text, extra;
    fields >> time_text >> kind >> address_text >> bytes_text >> extra;
    const auto fail = [&]() {
      throw InputError(SourcePos{path, number, 0}, "line " + std::to_string(number), line, expected);
    };
    if (address_text.empty() || !extra.empty()) fail();
    DramRequest request;
    double time_ns = 0;
    {
      const auto* end = time_text.data() + time_text.size();
      const auto [ptr, error] = std::from_chars(time_text.data(), end, time_ns);
      if (error != std::errc() || ptr != end || !(time_ns >= 0 && time_ns < kMaxDramTraceTimeNs)) fail();
    }
    if (kind == "R" || kind == "r") {
      request.write = false;
    } else if (kind == "W" || kind == "w") {
      request.write = true;
    } else {
      fail();
    }
    std::string hex = address_text;
    if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex = hex.substr(2);
    {
      const auto* end = hex.data() + hex.size();
      const auto [ptr, error] = std::from_chars(hex.data(), end, request.address, 16);
      if (hex.empty() || error != std::errc() || ptr != end) fail();
    }
    request.bytes = default_bytes;
    if (!bytes_text.empty()) {
      const auto* end = bytes_text.data() + bytes_text.size();
      const auto [ptr, error] = std::from_chars(bytes_text.data(), end, request.bytes);
      if (error != std::errc() || ptr != end || request.bytes == 0 || request.bytes > kMaxDramRequestBytes) fail();
    }
    // The request's last byte, address + bytes - 1, must be an address.
    if (request.bytes > 0 && request.bytes - 1 > std::numeric_limits<Bytes>::max() - request.address) fail();
    const Seconds at_s = time_ns * 1e-9;
    if (at_s < previous_s) fail();
    previous_s = at_s;
    request.arrival_fs = seconds_to_fs(at_s);  // as sc_time(at_s, SC_SEC) rounds at the kernel's resolution, 1 fs
    requests.push_back(request);
  }
  return requests;
}

}  // namespace roofsim
