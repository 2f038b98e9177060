#include "sim/report/trace_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>

namespace roofsim {

namespace {

using json = nlohmann::ordered_json;

constexpr int kPid = 1;
constexpr std::uint32_t kFirstUnitTid = 1000;  // op lanes take tids 1..lanes, units from here

double to_us(Seconds s) {
  return s * 1e6;
}

json meta(const char* what, std::uint32_t tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", tid}, {"args", {{"name", name}}}};
}

// Op lanes: each op goes to the first lane whose last op ended by the op's launch, so spans on a lane never overlap
// and their B/E pairs nest trivially.
std::vector<std::uint32_t> assign_lanes(const std::vector<TraceOp>& ops, std::uint32_t& lanes) {
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ops[a].launch_s < ops[b].launch_s; });
  std::vector<Seconds> lane_end;
  std::vector<std::uint32_t> lane(ops.size(), 0);
  for (const auto i : order) {
    std::uint32_t l = 0;
    while (l < lane_end.size() && lane_end[l] > ops[i].launch_s) ++l;
    if (l == lane_end.size()) lane_end.push_back(0);
    lane_end[l] = std::max(ops[i].end_s, ops[i].launch_s);
    lane[i] = l;
  }
  lanes = static_cast<std::uint32_t>(lane_end.size());
  return lane;
}

// The tracks of the units: one per unit, or per unit and slot when a unit holds several tiles at once.
struct UnitTracks {
  std::uint32_t slots = 1;
  [[nodiscard]] std::uint32_t tid(std::uint32_t unit, std::uint32_t slot) const {
    return kFirstUnitTid + unit * slots + slot;
  }
};

// How the tiles were thinned to stay under the bound: k tiles per event, then every m-th unit's tracks.
struct TileSampling {
  std::uint64_t total = 0;  // tiles of the run
  std::uint64_t bound = 0;  // max_tile_events
  std::uint64_t k = 1;
  std::uint64_t m = 1;
  std::uint64_t tile_events = 0;
  std::uint64_t tiles_shown = 0;
};

// The process's name, then each op lane's and each unit track's name and sort position.
void write_track_names(const TraceData& data, std::uint32_t lanes, const UnitTracks& units, TraceEventStream& events) {
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", 0}, {"args", {{"name", data.device}}}});
  for (std::uint32_t l = 0; l < lanes; ++l) {
    events.push_back(meta("thread_name", 1 + l, "ops" + (lanes > 1 ? " lane " + std::to_string(l) : std::string())));
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"ts", 0},
                      {"pid", kPid},
                      {"tid", 1 + l},
                      {"args", {{"sort_index", static_cast<int>(l)}}}});
  }
  for (std::uint32_t u = 0; u < data.units; ++u) {
    for (std::uint32_t s = 0; s < units.slots; ++s) {
      const std::string name = "unit " + std::to_string(u) + (units.slots > 1 ? " slot " + std::to_string(s) : "");
      events.push_back(meta("thread_name", units.tid(u, s), name));
      events.push_back({{"name", "thread_sort_index"},
                        {"ph", "M"},
                        {"ts", 0},
                        {"pid", kPid},
                        {"tid", units.tid(u, s)},
                        {"args", {{"sort_index", static_cast<int>(units.tid(u, s))}}}});
    }
  }
}

// Ops, lane by lane in time order (B then E of each op before the next op's B on the lane).
void write_op_spans(const TraceData& data, const std::vector<std::uint32_t>& lane, TraceEventStream& events) {
  std::vector<std::size_t> order(data.ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return lane[a] != lane[b] ? lane[a] < lane[b] : data.ops[a].launch_s < data.ops[b].launch_s;
  });
  for (const auto i : order) {
    const auto& op = data.ops[i];
    const std::uint32_t tid = 1 + lane[i];
    json args = {{"kind", op.kind}, {"first_tile_us", to_us(op.start_s)}};
    for (const auto& [key, value] : op.args) args[key] = value;
    events.push_back({{"name", op.name},
                      {"cat", "op"},
                      {"ph", "B"},
                      {"ts", to_us(op.launch_s)},
                      {"pid", kPid},
                      {"tid", tid},
                      {"args", std::move(args)}});
    events.push_back({{"name", op.name},
                      {"cat", "op"},
                      {"ph", "E"},
                      {"ts", to_us(std::max(op.end_s, op.launch_s))},
                      {"pid", kPid},
                      {"tid", tid}});
  }
}

// Dependencies as flows from each producer's span to its consumer's. A flow event binds to the slice open on its
// track at its time ("s" always, "f" with bp = "e"), so both sit at the middle of their op's span: at a span's very
// begin or end the binding would depend on how a viewer orders events of equal time. Viewers draw the arrow from the
// producer's end to the consumer's begin.
void write_dependency_flows(const TraceData& data, const std::vector<std::uint32_t>& lane, TraceEventStream& events) {
  const auto middle = [](const TraceOp& op) { return 0.5 * (op.launch_s + std::max(op.end_s, op.launch_s)); };
  std::uint64_t flow_id = 0;
  for (std::size_t i = 0; i < data.ops.size(); ++i) {
    for (const auto p : data.ops[i].after) {
      if (p >= data.ops.size()) continue;
      ++flow_id;
      events.push_back({{"name", "dependency"},
                        {"cat", "dependency"},
                        {"ph", "s"},
                        {"id", flow_id},
                        {"ts", to_us(middle(data.ops[p]))},
                        {"pid", kPid},
                        {"tid", 1 + lane[p]}});
      events.push_back({{"name", "dependency"},
                        {"cat", "dependency"},
                        {"ph", "f"},
                        {"bp", "e"},
                        {"id", flow_id},
                        {"ts", to_us(middle(data.ops[i]))},
                        {"pid", kPid},
                        {"tid", 1 + lane[i]}});
    }
  }
}

// Tiles, per track in time order, aggregated k at a time above the bound.
TileSampling write_tile_spans(const TraceData& data, const TraceOptions& options, const UnitTracks& units,
                              TraceEventStream& events) {
  TileSampling sampling;
  sampling.total = data.tiles.size();
  sampling.bound = std::max<std::uint64_t>(1, options.max_tile_events);
  sampling.k = sampling.total <= sampling.bound ? 1 : (sampling.total + sampling.bound - 1) / sampling.bound;
  std::map<std::uint32_t, std::vector<const TraceTile*>> tracks;
  for (const auto& tile : data.tiles) tracks[units.tid(tile.unit, tile.slot)].push_back(&tile);
  struct Aggregate {
    std::uint32_t tid;
    const TraceTile* first;
    Seconds end_s;
    std::uint64_t tiles;
  };
  std::vector<Aggregate> aggregates;
  for (auto& [tid, tiles] : tracks) {
    std::stable_sort(tiles.begin(), tiles.end(),
                     [](const TraceTile* a, const TraceTile* b) { return a->start_s < b->start_s; });
    for (std::size_t i = 0; i < tiles.size();) {
      std::size_t j = i + 1;
      while (j < tiles.size() && j - i < sampling.k && tiles[j]->op == tiles[i]->op) ++j;
      aggregates.push_back(Aggregate{tid, tiles[i], tiles[j - 1]->end_s, j - i});
      i = j;
    }
  }
  // Runs of one op on a track can be short (few tiles per unit per op): if the aggregates still exceed the bound,
  // keep the tracks of every m-th unit only.
  sampling.m = aggregates.size() <= sampling.bound ? 1 : (aggregates.size() + sampling.bound - 1) / sampling.bound;
  for (const auto& a : aggregates) {
    if (a.first->unit % sampling.m != 0) continue;
    const std::string name = a.first->op < data.ops.size() ? data.ops[a.first->op].name : std::to_string(a.first->op);
    events.push_back({{"name", name},
                      {"cat", "tile"},
                      {"ph", "X"},
                      {"ts", to_us(a.first->start_s)},
                      {"dur", to_us(std::max(0.0, a.end_s - a.first->start_s))},
                      {"pid", kPid},
                      {"tid", a.tid},
                      {"args", {{"tiles", a.tiles}}}});
    ++sampling.tile_events;
    sampling.tiles_shown += a.tiles;
  }
  return sampling;
}

void write_counters(const TraceData& data, TraceEventStream& events) {
  for (const auto& counter : data.counters) {
    for (const auto& [t, value] : counter.points) {
      events.push_back({{"name", counter.name},
                        {"ph", "C"},
                        {"ts", to_us(t)},
                        {"pid", kPid},
                        {"tid", 0},
                        {"args", {{counter.unit, std::max(0.0, value)}}}});
    }
  }
}

// Said where the viewer shows it too (Perfetto lists a process's labels beside its name), not only in otherData.
void write_sampling_label(const TileSampling& sampling, TraceEventStream& events) {
  if (sampling.k == 1 && sampling.m == 1) return;
  events.push_back({{"name", "process_labels"},
                    {"ph", "M"},
                    {"ts", 0},
                    {"pid", kPid},
                    {"tid", 0},
                    {"args",
                     {{"labels", "tiles aggregated " + std::to_string(sampling.k) + " per event" +
                                     (sampling.m > 1 ? ", every " + std::to_string(sampling.m) + "th unit shown"
                                                     : std::string())}}}});
}

// The members after the events: the display unit and otherData, which says how the tiles were sampled and how the
// counters were derived.
json trace_metadata(const TraceData& data, const TileSampling& sampling) {
  json root;
  root["displayTimeUnit"] = "ns";
  root["otherData"] = {
      {"generator", "roofsim run"},
      {"device", data.device},
      {"workload", data.workload},
      {"tiles", sampling.total},
      {"tile_events", sampling.tile_events},
      {"max_tile_events", sampling.bound},
      {"tiles_per_event", sampling.k},
      {"units_sampled_every", sampling.m},
      {"tiles_shown", sampling.tiles_shown},
      {"tile_sampling", sampling.k == 1 ? "every tile is one event"
                                        : "above max_tile_events: consecutive tiles of one op on one track "
                                          "are aggregated, up to tiles_per_event per event (args.tiles); if "
                                          "still above, only the tracks of every units_sampled_every-th unit "
                                          "are kept"},
      {"counters", data.counters_note}};
  return root;
}

}  // namespace

TraceEventStream::TraceEventStream(std::ostream& out) : out_(out) {
  out_ << "{\"traceEvents\":[";
}

void TraceEventStream::push_back(const nlohmann::ordered_json& event) {
  if (!first_) out_ << ',';
  out_ << event.dump();
  first_ = false;
}

void TraceEventStream::finish(const nlohmann::ordered_json& rest) {
  out_ << ']';
  for (const auto& [key, value] : rest.items())
    out_ << ',' << nlohmann::ordered_json(key).dump() << ':' << value.dump();
  out_ << "}\n";
}

void write_trace_json(const TraceData& data, const TraceOptions& options, std::ostream& out) {
  TraceEventStream events(out);
  std::uint32_t lanes = 0;
  const auto lane = assign_lanes(data.ops, lanes);
  const UnitTracks units{std::max<std::uint32_t>(1, data.slots_per_unit)};
  write_track_names(data, lanes, units, events);
  write_op_spans(data, lane, events);
  write_dependency_flows(data, lane, events);
  const auto sampling = write_tile_spans(data, options, units, events);
  write_counters(data, events);
  write_sampling_label(sampling, events);
  events.finish(trace_metadata(data, sampling));
}

}  // namespace roofsim
