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
// A request's size: far above any real transaction (a DMA descriptor moves a few MiB), and small enough that its parts,
// one per DRAM row it touches, fit in memory.
inline constexpr Bytes kMaxDramRequestBytes = Bytes{1} << 30;
// A request's time: the simulator's clock counts femtoseconds in 64 bits; 2^63 fs is some 2.5 hours.
inline constexpr double kMaxDramTraceTimeNs = 9.2e12;

// `default_bytes`: the size of lines without one. A size of 0 or above kMaxDramRequestBytes, a request past the end of
// the 64-bit address space or a time at or above kMaxDramTraceTimeNs is a malformed line. Only a regular file of at
// most kMaxDramTraceBytes is read; any other (a folder, /dev/zero, a FIFO, a name too long) is an InputError naming the
// path.
[[nodiscard]] DramRequests read_dram_trace(const std::string& path, Bytes default_bytes);

}  // namespace roofsim
