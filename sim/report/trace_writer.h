#pragma once
// trace.json (issue 5 item 4): a run's timeline in the Chrome trace event format (the JSON object form with
// "traceEvents"), which Perfetto (ui.perfetto.dev) and chrome://tracing open. The engine fills TraceData from its
// recorded spans; this writer only formats it.
//
// Tracks of the one process "device": op lanes (ops as B/E pairs; ops that overlap in time take separate lanes),
// one track per unit (per unit and slot when a unit holds several tiles at once) with each tile as a complete
// ("X") event, counter tracks of bandwidth per memory level (GB/s), and flow events from each op's producers to it.
// Size bound: above `max_tile_events` tiles, consecutive tiles of one op on one track are aggregated k at a time
// into one span (args.tiles = k); if that is still above the bound, only every m-th unit's tracks are kept; the
// trace's metadata (otherData) says both.
// Format reference: "Trace Event Format", Google,
// https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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

struct TraceOptions {
  std::uint64_t max_tile_events = 20000;
};

// Per level, the bandwidth over time when each op moves its bytes evenly over its [start, end]: at each boundary,
// the sum over the ops running of bytes / duration. `bytes[i]` is op i's byte count at the level.
[[nodiscard]] TraceCounter spread_bandwidth(const std::string& name, const std::vector<TraceOp>& ops,
                                            const std::vector<Bytes>& bytes);

void write_trace_json(const TraceData& data, const TraceOptions& options, std::ostream& out);

// A trace's events, written to the stream one at a time as they are made: held as one JSON document, a trace of some
// 10^5 events took about ten times its file's size in memory and was the largest share of a run's peak RSS. The bytes
// are those of dumping {"traceEvents": [...], <rest's members>} at once.
class TraceEventStream {
 public:
  explicit TraceEventStream(std::ostream& out);
  void push_back(const nlohmann::ordered_json& event);
  // Closes the event array, writes the members of `rest` after it and ends the document.
  void finish(const nlohmann::ordered_json& rest);

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace roofsim
