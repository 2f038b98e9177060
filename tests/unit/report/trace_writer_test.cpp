// trace.json as the writer streams it: one JSON document whose event count is what the data implies (metadata, a B/E
// pair per op, a flow pair per dependency, one X per tile or aggregate, one C per counter point), aggregation above
// the tile bound, and the metadata members after the events.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <string>

#include "sim/report/trace_writer.h"

using namespace roofsim;

namespace {

// Two ops on one unit with one slot: "a" (4 tiles) then "b" (2 tiles) after it; one counter of 3 points.
TraceData two_ops() {
  TraceData data;
  data.device = "dev \"quoted\"";
  data.workload = "w";
  data.units = 1;
  data.ops.push_back(TraceOp{"a", "gemm", 0.0, 0.0, 4e-6, {}, {{"energy_mj", 1.5}}});
  data.ops.push_back(TraceOp{"b", "stream", 4e-6, 4e-6, 6e-6, {0}, {}});
  for (std::uint32_t t = 0; t < 4; ++t) data.tiles.push_back(TraceTile{0, 0, 0, t * 1e-6, (t + 1) * 1e-6});
  for (std::uint32_t t = 0; t < 2; ++t) data.tiles.push_back(TraceTile{1, 0, 0, (4 + t) * 1e-6, (5 + t) * 1e-6});
  data.counters.push_back(TraceCounter{"dram bandwidth", "GB/s", {{0.0, 1.0}, {4e-6, 2.0}, {6e-6, 0.0}}});
  data.counters_note = "note";
  return data;
}

nlohmann::json written(const TraceData& data, std::uint64_t max_tile_events) {
  std::ostringstream out;
  write_trace_json(data, TraceOptions{max_tile_events}, out);
  const std::string text = out.str();
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  return nlohmann::json::parse(text);  // throws unless the whole text is one JSON value
}

std::map<std::string, int> count_phases(const nlohmann::json& trace) {
  std::map<std::string, int> phases;
  for (const auto& event : trace.at("traceEvents")) ++phases[event.at("ph").get<std::string>()];
  return phases;
}

}  // namespace

TEST_CASE("trace.json streamed: one document with a B and E per op, a flow pair per dependency, an X per tile") {
  const auto trace = written(two_ops(), 100);
  const auto phases = count_phases(trace);
  // Metadata: process name, one op lane's name and sort index, one unit track's name and sort index.
  CHECK(phases.at("M") == 5);
  CHECK(phases.at("B") == 2);
  CHECK(phases.at("E") == 2);
  CHECK(phases.at("s") == 1);
  CHECK(phases.at("f") == 1);
  CHECK(phases.at("X") == 6);
  CHECK(phases.at("C") == 3);
  CHECK(trace.at("traceEvents").size() == 20);
  CHECK(trace.at("displayTimeUnit") == "ns");
  const auto& other = trace.at("otherData");
  CHECK(other.at("device") == "dev \"quoted\"");
  CHECK(other.at("tiles") == 6);
  CHECK(other.at("tile_events") == 6);
  CHECK(other.at("tiles_per_event") == 1);
  CHECK(other.at("counters") == "note");
}

TEST_CASE("trace.json streamed: above the bound, tiles of one op on a track are aggregated k per event") {
  // 6 tiles over a bound of 3: k = 2; op a's 4 tiles make 2 events, op b's 2 tiles one.
  const auto trace = written(two_ops(), 3);
  CHECK(count_phases(trace).at("X") == 3);
  std::uint64_t tiles = 0;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "X") tiles += event.at("args").at("tiles").get<std::uint64_t>();
  }
  CHECK(tiles == 6);
  CHECK(trace.at("otherData").at("tiles_per_event") == 2);
  CHECK(trace.at("otherData").at("tiles_shown") == 6);
}
