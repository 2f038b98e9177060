#pragma once
// A run's timeline as trace.json shows it (sim/report/trace_writer.h writes it): ops with their spans and
// dependencies, tiles on units and slots, and counter tracks. sim/results/run_trace.h fills it from a RunResult.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/units.h"

namespace roofsim {

struct TraceOp {
  std::string name;
  std::string kind;
  Seconds launch_s = 0;
  Seconds start_s = 0;
  Seconds end_s = 0;
  std::vector<std::size_t> after;                    // producers (indices into TraceData::ops)
  std::vector<std::pair<std::string, double>> args;  // more figures shown with the span ("power_w", ...)
};

struct TraceTile {
  std::uint32_t op = 0;
  std::uint32_t unit = 0;
  std::uint32_t slot = 0;
  Seconds start_s = 0;
  Seconds end_s = 0;
};

// A piecewise-constant counter: value from each point's time to the next point's.
struct TraceCounter {
  std::string name;  // "dram bandwidth"
  std::string unit;  // "GB/s"
  std::vector<std::pair<Seconds, double>> points;
};

struct TraceData {
  std::string device;
  std::string workload;
  std::uint32_t units = 0;
  std::uint32_t slots_per_unit = 1;
  std::vector<TraceOp> ops;
  std::vector<TraceTile> tiles;
  std::vector<TraceCounter> counters;
  std::string counters_note;  // how the counters were derived
};

// Per level, the bandwidth over time when each op moves its bytes evenly over its [start, end]: at each boundary,
// the sum over the ops running of bytes / duration. `bytes[i]` is op i's byte count at the level.
[[nodiscard]] TraceCounter spread_bandwidth(const std::string& name, const std::vector<TraceOp>& ops,
                                            const std::vector<Bytes>& bytes);

}  // namespace roofsim
