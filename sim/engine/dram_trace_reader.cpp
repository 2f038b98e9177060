#include "sim/engine/dram_trace_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <type_traits>

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"

namespace roofsim {

namespace {

struct FormatName {
  DramTraceFormat format;
  std::string_view name;
  std::string_view expected;  // what a line looks like, for errors
};

constexpr FormatName kFormats[] = {
    {DramTraceFormat::automatic, "auto", "a line of one of the formats roofsim, ramulator, dramsim3 or dramsys"},
    {DramTraceFormat::roofsim, "roofsim", "a line '<time_ns> <R|W> <hex address> [bytes]', times not decreasing"},
    {DramTraceFormat::ramulator, "ramulator", "a Ramulator 2 line '<LD|ST> <address>' (decimal or 0x hex)"},
    {DramTraceFormat::dramsim3, "dramsim3",
     "a DRAMsim3 line '<hex address> <READ|WRITE> <cycle>', cycles not decreasing"},
    {DramTraceFormat::dramsys, "dramsys",
     "a DRAMSys STL line '<cycle>: [(<bytes>)] <read|write> <hex address> [data]', cycles not decreasing"},
};

const FormatName& format_entry(DramTraceFormat format) {
  for (const auto& entry : kFormats) {
    if (entry.format == format) return entry;
  }
  return kFormats[0];
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Up to kMax whitespace-separated fields of a line; `count` may exceed kMax (then the line has too many).
struct Fields {
  static constexpr std::size_t kMax = 6;
  std::array<std::string_view, kMax> field;
  std::size_t count = 0;
};

Fields split(std::string_view line) {
  Fields fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (fields.count < Fields::kMax) fields.field[fields.count] = line.substr(start, i - start);
    ++fields.count;
  }
  return fields;
}

template <class T>
bool parse_number(std::string_view text, T& value, int base = 10) {
  if (text.empty()) return false;
  if constexpr (std::is_floating_point_v<T>) {
    // A whole number of up to 15 digits (most trace times) converts exactly: the same value from_chars gives.
    if (text.size() <= 15) {
      std::uint64_t whole = 0;
      bool digits = true;
      for (const char c : text) {
        if (c < '0' || c > '9') {
          digits = false;
          break;
        }
        whole = whole * 10 + static_cast<std::uint64_t>(c - '0');
      }
      if (digits) {
        value = static_cast<T>(whole);
        return true;
      }
    }
  }
  const auto* end = text.data() + text.size();
  std::from_chars_result result{};
  if constexpr (std::is_floating_point_v<T>) {
    result = std::from_chars(text.data(), end, value);
  } else {
    result = std::from_chars(text.data(), end, value, base);
  }
  return result.ec == std::errc() && result.ptr == end;
}

bool parse_hex(std::string_view text, std::uint64_t& value) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  return parse_number(text, value, 16);
}

// Ramulator 2 accepts decimal, or hex after 0x.
bool parse_address(std::string_view text, std::uint64_t& value) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return parse_hex(text, value);
  return parse_number(text, value);
}

bool is_dramsim3_write(std::string_view op) {
  return op == "WRITE" || op == "write" || op == "P_MEM_WR" || op == "BOFF";
}

bool is_dramsim3_read(std::string_view op) {
  return op == "READ" || op == "read" || op == "P_MEM_RD" || op == "P_FETCH" || op == "IFETCH" || op == "P_LOCK_RD" ||
         op == "P_LOCK_WR";
}

// The R|W field of a roofsim line (either case): false for any other.
bool parse_roofsim_kind(std::string_view kind, bool& write) {
  if (kind.size() != 1) return false;
  write = kind[0] == 'W' || kind[0] == 'w';
  return write || kind[0] == 'R' || kind[0] == 'r';
}

// The request of one line of `format`; false when the line does not parse. `time_s` is set for timed formats.
bool parse_line(DramTraceFormat format, std::string_view line, const DramTraceOptions& options, DramRequest& request,
                double& time_s) {
  const Fields f = split(line);
  request.bytes = options.default_bytes;
  switch (format) {
    case DramTraceFormat::roofsim: {
      if (f.count < 3 || f.count > 4) return false;
      double time_ns = 0;
      if (!parse_number(f.field[0], time_ns) || !(time_ns >= 0) || !std::isfinite(time_ns)) return false;
      if (!parse_roofsim_kind(f.field[1], request.write)) return false;
      if (!parse_hex(f.field[2], request.address)) return false;
      if (f.count == 4 && (!parse_number(f.field[3], request.bytes) || request.bytes == 0)) return false;
      time_s = time_ns * 1e-9;
      return true;
    }
    case DramTraceFormat::ramulator: {
      if (f.count != 2) return false;
      if (f.field[0] == "LD") {
        request.write = false;
      } else if (f.field[0] == "ST") {
        request.write = true;
      } else {
        return false;
      }
      time_s = 0;
      return parse_address(f.field[1], request.address);
    }
    case DramTraceFormat::dramsim3: {
      if (f.count != 3) return false;
      if (!parse_hex(f.field[0], request.address)) return false;
      if (is_dramsim3_write(f.field[1])) {
        request.write = true;
      } else if (is_dramsim3_read(f.field[1])) {
        request.write = false;
      } else {
        return false;
      }
      std::uint64_t cycle = 0;
      if (!parse_number(f.field[2], cycle)) return false;
      time_s = static_cast<double>(cycle) * options.cycle_s;
      return true;
    }
    case DramTraceFormat::dramsys: {
      if (f.count < 3) return false;
      auto stamp = f.field[0];
      if (stamp.empty() || stamp.back() != ':') return false;
      stamp.remove_suffix(1);
      std::uint64_t cycle = 0;
      if (!parse_number(stamp, cycle)) return false;
      std::size_t next = 1;
      if (f.field[next].size() > 2 && f.field[next].front() == '(' && f.field[next].back() == ')') {
        if (!parse_number(f.field[next].substr(1, f.field[next].size() - 2), request.bytes) || request.bytes == 0)
          return false;
        ++next;
      }
      // The command, the address and, for a write of a storage-enabled trace, its data.
      if (f.count < next + 2 || f.count > next + 3) return false;
      if (f.field[next] == "read") {
        request.write = false;
      } else if (f.field[next] == "write") {
        request.write = true;
      } else {
        return false;
      }
      if (!parse_hex(f.field[next + 1], request.address)) return false;
      time_s = static_cast<double>(cycle) * options.cycle_s;
      return true;
    }
    case DramTraceFormat::automatic: return false;
  }
  return false;
}

// A roofsim line of the common shape, read in one pass: `<whole ns> <R|W> <hex address> [bytes]` with spaces or tabs
// between, no comment. false for any other line, which the general parser then reads (and judges): it accepts each
// line this one does with the same request and time, so the fast path changes only the speed.
bool parse_plain_roofsim_line(std::string_view line, DramRequest& request, double& time_ns) {
  const char* p = line.data();
  const char* const end = p + line.size();
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  const auto digit = [](char c) { return static_cast<unsigned>(c - '0') < 10U; };
  while (p != end && blank(*p)) ++p;
  // Up to 15 digits convert to a double exactly, as parse_number's whole-number path does.
  std::uint64_t whole = 0;
  const char* const time_start = p;
  for (; p != end && digit(*p); ++p) whole = whole * 10 + static_cast<std::uint64_t>(*p - '0');
  if (p == time_start || p - time_start > 15 || p == end || !blank(*p)) return false;
  while (p != end && blank(*p)) ++p;
  if (p == end || !parse_roofsim_kind(std::string_view(p, 1), request.write)) return false;
  ++p;
  if (p == end || !blank(*p)) return false;
  while (p != end && blank(*p)) ++p;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
  std::uint64_t address = 0;
  const char* const address_start = p;
  for (; p != end; ++p) {
    const char c = *p;
    unsigned value = 0;
    if (digit(c)) {
      value = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      value = static_cast<unsigned>(c - 'A' + 10);
    } else {
      break;
    }
    address = address << 4 | value;
  }
  if (p == address_start || p - address_start > 16) return false;
  request.address = address;
  while (p != end && blank(*p)) ++p;
  if (p != end && digit(*p)) {
    std::uint64_t bytes = 0;
    const char* const bytes_start = p;
    for (; p != end && digit(*p); ++p) bytes = bytes * 10 + static_cast<std::uint64_t>(*p - '0');
    if (p - bytes_start > 19 || bytes == 0) return false;
    request.bytes = bytes;
    while (p != end && blank(*p)) ++p;
  }
  if (p != end && *p == '\r') ++p;
  if (p != end) return false;
  time_ns = static_cast<double>(whole);
  return true;
}

}  // namespace

std::optional<DramTraceFormat> parse_dram_trace_format(std::string_view name) {
  for (const auto& entry : kFormats) {
    if (entry.name == name) return entry.format;
  }
  return std::nullopt;
}

std::string_view dram_trace_format_name(DramTraceFormat format) {
  return format_entry(format).name;
}

std::optional<DramTraceFormat> detect_dram_trace_format(std::string_view line) {
  // The first field tells them apart: LD/ST, a cycle with a colon, a hex address with a word after it, a time.
  const Fields f = split(line);
  if (f.count == 0) return std::nullopt;
  const auto first = f.field[0];
  if (first == "LD" || first == "ST") return DramTraceFormat::ramulator;
  if (first.back() == ':') return DramTraceFormat::dramsys;
  if (f.count >= 2 && (is_dramsim3_read(f.field[1]) || is_dramsim3_write(f.field[1]))) {
    return DramTraceFormat::dramsim3;
  }
  if (f.count >= 2 && (f.field[1] == "R" || f.field[1] == "W" || f.field[1] == "r" || f.field[1] == "w")) {
    return DramTraceFormat::roofsim;
  }
  return std::nullopt;
}

DramRequests parse_dram_trace(std::string_view text, const std::string& name, const DramTraceOptions& options) {
  DramRequests requests;
  // At most a request a line.
  requests.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  DramTraceFormat format = options.format;
  std::uint32_t number = 0;
  double previous_s = 0;
  std::size_t position = 0;
  while (position < text.size()) {
    const void* newline = std::memchr(text.data() + position, '\n', text.size() - position);
    const std::size_t end =
        newline != nullptr ? static_cast<std::size_t>(static_cast<const char*>(newline) - text.data()) : text.size();
    std::string_view line = text.substr(position, end - position);
    position = end + 1;
    ++number;
    DramRequest request;
    double time_s = 0;
    if (format == DramTraceFormat::roofsim) {
      request.bytes = options.default_bytes;
      double time_ns = 0;
      if (parse_plain_roofsim_line(line, request, time_ns)) {
        time_s = time_ns * 1e-9;
        if (time_s >= previous_s && request.bytes <= kMaxDramRequestBytes &&
            request.bytes - 1 <= std::numeric_limits<Bytes>::max() - request.address &&
            time_s < kMaxDramTraceTimeNs * 1e-9) {
          previous_s = time_s;
          request.arrival_fs = seconds_to_fs(time_s);
          requests.push_back(request);
          continue;
        }
        request = DramRequest{};  // the general path below reports what is wrong with it
      }
    }
    if (const auto comment = line.find('#'); comment != std::string_view::npos) line = line.substr(0, comment);
    while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
    while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
    if (line.empty()) continue;
    const auto fail = [&]() {
      throw InputError(SourcePos{name, number, 0}, "line " + std::to_string(number), std::string(line),
                       std::string(format_entry(format).expected));
    };
    if (format == DramTraceFormat::automatic) {
      const auto detected = detect_dram_trace_format(line);
      if (!detected) fail();
      format = *detected;
    }
    if (!parse_line(format, line, options, request, time_s)) fail();
    if (time_s < previous_s) fail();
    // Whatever the format: a size whose parts fit in memory, a last byte inside the 64-bit address space, a time the
    // femtosecond clock holds.
    if (request.bytes > kMaxDramRequestBytes ||
        request.bytes - 1 > std::numeric_limits<Bytes>::max() - request.address ||
        !(time_s < kMaxDramTraceTimeNs * 1e-9)) {
      throw InputError(SourcePos{name, number, 0}, "line " + std::to_string(number), std::string(line),
                       "a request of 1 B .. 1 GiB inside the 64-bit address space, at a time below 9.2e12 ns");
    }
    previous_s = time_s;
    request.arrival_fs = seconds_to_fs(time_s);  // as sc_time(at_s, SC_SEC) rounds at the kernel's resolution, 1 fs
    requests.push_back(request);
  }
  return requests;
}

DramRequests read_dram_trace(const std::string& path, const DramTraceOptions& options) {
  check_input_file(path, "DRAM trace", kMaxDramTraceBytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourcePos{path}, "cannot open this DRAM trace file");
  std::string text;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) text.resize(static_cast<std::size_t>(size));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_dram_trace(text, path, options);
}

}  // namespace roofsim
