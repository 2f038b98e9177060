#pragma once
// Writes DRAM requests as a trace of one of the formats `roofsim dram` reads (sim/engine/dram_trace_reader.h), so that
// a pattern, a trace or a workload's DRAM traffic can be fed to Ramulator 2, DRAMsim3 or DRAMSys.
//   roofsim    every field kept (time in ns, size in bytes)
//   ramulator  no time and no size: each request becomes its `line_bytes` pieces, offered at once
//   dramsim3   no size: pieces of `line_bytes`; times rounded to the nearest cycle of `cycle_s`
//   dramsys    times rounded to the nearest cycle of `cycle_s`; the size kept as "(bytes)"
// Reading a written trace back gives the same requests when the format keeps what they carry (times on whole cycles
// for dramsim3 and dramsys, zero times for ramulator, requests of `line_bytes` for both).
#include <iosfwd>

#include "sim/core/units.h"
#include "sim/engine/dram_run.h"
#include "sim/engine/dram_trace_reader.h"

namespace roofsim {

void write_dram_trace(std::ostream& out, const DramRequests& requests, DramTraceFormat format, Seconds cycle_s,
                      Bytes line_bytes);

}  // namespace roofsim
