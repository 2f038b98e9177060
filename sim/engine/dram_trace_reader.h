#pragma once
// The request trace of `roofsim dram`: lines `<time_ns> <R|W> <hex address> [bytes]`; blank lines and `#` comments
// are skipped. A malformed line, or a time below the previous line's, is an InputError naming the file and line.
#include <cstdint>
#include <string>

#include "sim/core/units.h"
#include "sim/engine/dram_run.h"

namespace roofsim {

// Each request holds a few times a line's bytes in memory: 1 GiB of trace lines is some 40 million requests.
inline constexpr std::uintmax_t kMaxDramTraceBytes = std::uintmax_t{1} << 30;

// `default_bytes`: the size of lines without one. Only a regular file of at most kMaxDramTraceBytes is read; any
// other (a folder, /dev/zero, a FIFO, a name too long) is an InputError naming the path.
[[nodiscard]] DramRequests read_dram_trace(const std::string& path, Bytes default_bytes);

}  // namespace roofsim
