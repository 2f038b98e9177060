#include "sim/report/cluster_trace_writer.h"

#include <fmt/format.h>

#include "sim/report/link_trace_slices.h"
#include "sim/report/trace_writer.h"
#include "sim/results/cluster_report.h"

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

void write_cluster_trace_json(const ClusterRunResult& result, const std::vector<Report>& rank_reports,
                              const TraceOptions& options, std::ostream& out) {
  TraceEventStream events(out);
  // pid 0 is the network; rank r is pid r + 1.
  for (std::size_t r = 0; r < result.simulated.size(); ++r) {
    const auto& rank = result.simulated[r];
    const std::uint64_t pid = rank.rank + 1;
    events.push_back(metadata("process_name", pid, 0,
                              rank.represents > 1 ? fmt::format("rank {} (stands for {})", rank.rank, rank.represents)
                                                  : fmt::format("rank {}", rank.rank)));
    events.push_back(metadata("thread_name", pid, 0, "compute"));
    events.push_back(metadata("thread_name", pid, 1, "collectives"));
    events.push_back(metadata("thread_name", pid, 2, "exposed communication"));
    events.push_back(metadata("thread_name", pid, 3, "step"));
    for (const auto& op : rank.result.ops) {
      events.push_back(slice(op.name, pid, op.simulated ? 0 : 1, op.launch_s, op.end_s));
    }
    for (const auto& [begin, end] : rank.step.exposed_periods) events.push_back(slice("exposed", pid, 2, begin, end));
    // The step's figures on one slice over the whole step.
    auto step = slice("step", pid, 3, 0.0, rank.step.step_s);
    step["args"] = {{"step_us", rank.step.step_s * 1e6},
                    {"compute_us", rank.step.compute_s * 1e6},
                    {"communication_us", rank.step.communication_s * 1e6},
                    {"exposed_communication_us", rank.step.exposed_communication_s * 1e6},
                    {"network_bytes_sent", rank.step.network_bytes_sent}};
    const auto& row = step_row(rank_reports[r]);
    step["args"]["comm_ceiling_TFLOP_per_s"] = row.roofline.ceilings.comm.flops_per_s / 1e12;
    step["args"]["binding_ceiling_TFLOP_per_s"] = row.attainable_flops_per_s() / 1e12;
    step["args"]["bound_by"] = row.roofline.bound_by;
    if (row.network_bytes > 0) {
      step["args"]["oi_net_flop_per_byte"] =
          static_cast<double>(row.useful_flops) / static_cast<double>(row.network_bytes);
    }
    events.push_back(std::move(step));
  }
  events.push_back(metadata("process_name", 0, 0, "network"));
  const auto slices = link_trace_slices(result.links, options.max_link_events);
  for (std::size_t l = 0; l < result.links.size(); ++l) {
    events.push_back(metadata("thread_name", 0, l, result.links[l].name));
    for (const auto& s : slices[l]) {
      if (s.periods == 1) {
        events.push_back(slice("busy", 0, l, s.begin_s, s.end_s));
        continue;
      }
      auto merged = slice("busy (merged)", 0, l, s.begin_s, s.end_s);
      merged["args"] = {{"busy_us", s.busy_s * 1e6}, {"periods", s.periods}};
      events.push_back(std::move(merged));
    }
  }
  events.finish(nlohmann::ordered_json{{"displayTimeUnit", "ns"}});
}

}  // namespace roofsim
