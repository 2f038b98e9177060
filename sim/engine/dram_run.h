#pragma once
// The DRAM model alone (`roofsim dram`, `roofsim bench dram`): requests, read from a trace (dram_trace_reader.h) or
// generated from a pattern, run on one DRAM device to completion, and what its controller measured. Call
// run_dram_requests once per process (SystemC elaborates once).
#include <cstdint>
#include <string>
#include <vector>

#include "models/dram/dram_request_source.h"
#include "models/dram/dram_stats.h"
#include "sim/config/dram_params.h"
#include "sim/core/units.h"

namespace roofsim {

// Requests in the order the device is offered them (non-decreasing times).
using DramRequests = std::vector<DramRequest>;

struct DramPattern {
  std::string kind;  // "stream", "random" or "strided"
  Bytes total_bytes = 0;
  Bytes request_bytes = 64;
  Bytes stride_bytes = 64;    // between requests of "strided"
  Bytes footprint_bytes = 0;  // address range of "random"
  double read_ratio = 1.0;    // fraction of requests that read
  std::uint64_t seed = 1;     // of "random" addresses and of the read/write draw
};

// Deterministic patterns: every request offered at time 0, so they issue as fast as the controller accepts them.
[[nodiscard]] DramRequests make_pattern_requests(const DramPattern& pattern);

struct DramRunResult {
  bool complete = true;  // false: a signal stopped the run; the figures cover the requests served until then
  dram::DramRunStats stats;
  dram::DramSummary summary;
};

// Builds a device of `channels` channels on `dram` and runs the requests to completion (or until a SIGINT or
// SIGTERM inside a DeferInterrupts scope, sim/core/interrupt.h, stops it).
[[nodiscard]] DramRunResult run_dram_requests(const DramParams& dram, std::uint32_t channels, DramRequests requests);

// The address mapping's grammar, for --help and error messages.
[[nodiscard]] std::string dram_mapping_grammar();

}  // namespace roofsim
