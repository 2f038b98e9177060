#pragma once
// The request traces `roofsim dram` reads: its own format and those of three peer simulators, so that one trace runs
// through all of them (scripts/compare-dram). Blank lines and `#` comments are skipped in every format.
//   roofsim    `<time_ns> <R|W> <hex address> [bytes]`
//   ramulator  `<LD|ST> <address>` (Ramulator 2 LoadStoreTrace; decimal or 0x hex; no time: offered at once)
//   dramsim3   `<hex address> <READ|WRITE|P_MEM_RD|P_MEM_WR|...> <cycle>` (DRAMsim3 trace; cycles of the memory clock)
//   dramsys    `<cycle>: [(<bytes>)] <read|write> <hex address> [data]` (DRAMSys STL player; absolute cycles)
// A malformed line, or a time below the previous line's, is an InputError naming the file, the line and the format.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

enum class DramTraceFormat { automatic, roofsim, ramulator, dramsim3, dramsys };

// "auto", "roofsim", "ramulator", "dramsim3", "dramsys" (nullopt: none of them).
[[nodiscard]] std::optional<DramTraceFormat> parse_dram_trace_format(std::string_view name);
[[nodiscard]] std::string_view dram_trace_format_name(DramTraceFormat format);
// The format of a trace whose first request line is `line` (comments and blank lines skipped); nullopt: none fits.
[[nodiscard]] std::optional<DramTraceFormat> detect_dram_trace_format(std::string_view line);

struct DramTraceOptions {
  DramTraceFormat format = DramTraceFormat::automatic;
  Bytes default_bytes = 64;  // the size of a request whose line gives none
  Seconds cycle_s = 0;       // the clock period of dramsim3 and dramsys timestamps (the DRAM's tCK)
};

// Only a regular file of at most kMaxDramTraceBytes is read; any other (a folder, /dev/zero, a FIFO, a name too long)
// is an InputError naming the path.
[[nodiscard]] DramRequests read_dram_trace(const std::string& path, const DramTraceOptions& options);
// The text of a trace, read as the file `name` would be (tests, and read_dram_trace itself).
[[nodiscard]] DramRequests parse_dram_trace(std::string_view text, const std::string& name,
                                            const DramTraceOptions& options);

}  // namespace roofsim
