#include "sim/engine/cluster_trace.h"

#include <fmt/format.h>

namespace roofsim {

namespace {

nlohmann::ordered_json slice(const std::string& name, std::uint64_t pid, std::uint64_t tid, Seconds begin_s,
                             Seconds end_s) {
  return {{"name", name}, {"ph", "X"},           {"pid", pid},
          {"tid", tid},   {"ts", begin_s * 1e6}, {"dur", (end_s - begin_s) * 1e6}};
}

nlohmann::ordered_json metadata(const char* what, std::uint64_t pid, std::uint64_t tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

nlohmann::ordered_json cluster_trace_json(const ClusterRunResult& result) {
  auto events = nlohmann::ordered_json::array();
  // pid 0 is the network; rank r is pid r + 1.
  for (const auto& rank : result.simulated) {
    const std::uint64_t pid = rank.rank + 1;
    events.push_back(metadata("process_name", pid, 0,
                              rank.represents > 1 ? fmt::format("rank {} (stands for {})", rank.rank, rank.represents)
                                                  : fmt::format("rank {}", rank.rank)));
    events.push_back(metadata("thread_name", pid, 0, "compute"));
    events.push_back(metadata("thread_name", pid, 1, "collectives"));
    for (const auto& op : rank.result.ops) {
      events.push_back(slice(op.name, pid, op.simulated ? 0 : 1, op.launch_s, op.end_s));
    }
  }
  events.push_back(metadata("process_name", 0, 0, "network"));
  for (std::size_t l = 0; l < result.links.size(); ++l) {
    const auto& link = result.links[l];
    events.push_back(metadata("thread_name", 0, l, link.name));
    for (const auto& [begin, end] : link.periods) events.push_back(slice("busy", 0, l, begin, end));
  }
  nlohmann::ordered_json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ns";
  return trace;
}

}  // namespace roofsim
