#pragma once
// The request trace of `roofsim dram`: lines `<time_ns> <R|W> <hex address> [bytes]`; blank lines and `#` comments
// are skipped. A malformed line, or a time below the previous line's, is an InputError naming the file and line.
#include <string>

#include "sim/core/units.h"
#include "sim/engine/dram_run.h"

namespace roofsim {

// `default_bytes`: the size of lines without one.
[[nodiscard]] DramRequests read_dram_trace(const std::string& path, Bytes default_bytes);

}  // namespace roofsim
