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
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", 0}, {"args", {{"name", data.device}}}});
  std::uint32_t lanes = 0;
  const auto lane = assign_lanes(data.ops, lanes);
  for (std::uint32_t l = 0; l < lanes; ++l) {
    events.push_back(meta("thread_name", 1 + l, "ops" + (lanes > 1 ? " lane " + std::to_string(l) : std::string())));
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"ts", 0},
                      {"pid", kPid},
                      {"tid", 1 + l},
                      {"args", {{"sort_index", static_cast<int>(l)}}}});
  }
  const std::uint32_t slots = std::max<std::uint32_t>(1, data.slots_per_unit);
  const auto unit_tid = [&](std::uint32_t unit, std::uint32_t slot) { return kFirstUnitTid + unit * slots + slot; };
  for (std::uint32_t u = 0; u < data.units; ++u) {
    for (std::uint32_t s = 0; s < slots; ++s) {
      const std::string name = "unit " + std::to_string(u) + (slots > 1 ? " slot " + std::to_string(s) : "");
      events.push_back(meta("thread_name", unit_tid(u, s), name));
      events.push_back({{"name", "thread_sort_index"},
                        {"ph", "M"},
                        {"ts", 0},
                        {"pid", kPid},
                        {"tid", unit_tid(u, s)},
                        {"args", {{"sort_index", static_cast<int>(unit_tid(u, s))}}}});
    }
  }

  // Ops, lane by lane in time order (B then E of each op before the next op's B on the lane).
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
  // Dependencies as flows from each producer's span to its consumer's. A flow event binds to the slice open on its
  // track at its time ("s" always, "f" with bp = "e"), so both sit at the middle of their op's span: at a span's
  // very begin or end the binding would depend on how a viewer orders events of equal time. Viewers draw the arrow
  // from the producer's end to the consumer's begin.
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

  // Tiles, per track in time order, aggregated k at a time above the bound.
  const std::uint64_t total = data.tiles.size();
  const std::uint64_t bound = std::max<std::uint64_t>(1, options.max_tile_events);
  const std::uint64_t k = total <= bound ? 1 : (total + bound - 1) / bound;
  std::map<std::uint32_t, std::vector<const TraceTile*>> tracks;
  for (const auto& tile : data.tiles) tracks[unit_tid(tile.unit, tile.slot)].push_back(&tile);
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
      while (j < tiles.size() && j - i < k && tiles[j]->op == tiles[i]->op) ++j;
      aggregates.push_back(Aggregate{tid, tiles[i], tiles[j - 1]->end_s, j - i});
      i = j;
    }
  }
  // Runs of one op on a track can be short (few tiles per unit per op): if the aggregates still exceed the bound,
  // keep the tracks of every m-th unit only.
  const std::uint64_t m = aggregates.size() <= bound ? 1 : (aggregates.size() + bound - 1) / bound;
  std::uint64_t tile_events = 0, tiles_shown = 0;
  for (const auto& a : aggregates) {
    if (a.first->unit % m != 0) continue;
    const std::string name = a.first->op < data.ops.size() ? data.ops[a.first->op].name : std::to_string(a.first->op);
    events.push_back({{"name", name},
                      {"cat", "tile"},
                      {"ph", "X"},
                      {"ts", to_us(a.first->start_s)},
                      {"dur", to_us(std::max(0.0, a.end_s - a.first->start_s))},
                      {"pid", kPid},
                      {"tid", a.tid},
                      {"args", {{"tiles", a.tiles}}}});
    ++tile_events;
    tiles_shown += a.tiles;
  }

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

  // Said where the viewer shows it too (Perfetto lists a process's labels beside its name), not only in otherData.
  if (k > 1 || m > 1) {
    events.push_back({{"name", "process_labels"},
                      {"ph", "M"},
                      {"ts", 0},
                      {"pid", kPid},
                      {"tid", 0},
                      {"args",
                       {{"labels", "tiles aggregated " + std::to_string(k) + " per event" +
                                       (m > 1 ? ", every " + std::to_string(m) + "th unit shown" : std::string())}}}});
  }

  json root;
  root["displayTimeUnit"] = "ns";
  root["otherData"] = {{"generator", "roofsim run"},
                       {"device", data.device},
                       {"workload", data.workload},
                       {"tiles", total},
                       {"tile_events", tile_events},
                       {"max_tile_events", bound},
                       {"tiles_per_event", k},
                       {"units_sampled_every", m},
                       {"tiles_shown", tiles_shown},
                       {"tile_sampling", k == 1 ? "every tile is one event"
                                                : "above max_tile_events: consecutive tiles of one op on one track "
                                                  "are aggregated, up to tiles_per_event per event (args.tiles); if "
                                                  "still above, only the tracks of every units_sampled_every-th unit "
                                                  "are kept"},
                       {"counters", data.counters_note}};
  events.finish(root);
}

}  // namespace roofsim
