#pragma once
// trace.json: a run's timeline in the Chrome trace event format (the JSON object form with "traceEvents"), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open. sim/results/run_trace.h fills TraceData from the engine's
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

#include <nlohmann/json.hpp>

#include "sim/results/trace_data.h"

namespace roofsim {

struct TraceOptions {
  std::uint64_t max_tile_events = 20000;
  // Link busy slices in a cluster run's trace.json (link_trace_slices.h): some 10 MB of JSON.
  std::uint64_t max_link_events = 100000;
};

void write_trace_json(const TraceData& data, const TraceOptions& options, std::ostream& out);

// A trace's events, written to the stream one at a time as they are made: held as one JSON document, a trace of some
// 10^5 events would take about ten times its file's size in memory, the largest share of a run's peak RSS. The bytes
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
