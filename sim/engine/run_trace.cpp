#include "sim/engine/run_trace.h"

#include <algorithm>

namespace roofsim {

TraceData make_trace_data(const Workload& workload, const HardwareParams& hardware, const RunResult& result) {
  TraceData data;
  data.device = result.device;
  data.workload = result.workload;
  data.units = static_cast<std::uint32_t>(hardware.compute.units);
  data.slots_per_unit = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, hardware.compute.occupancy));
  for (std::size_t i = 0; i < result.ops.size(); ++i) {
    const auto& stats = result.ops[i];
    TraceOp op;
    op.name = stats.name;
    op.kind = stats.kind;
    op.launch_s = stats.launch_s;
    op.start_s = stats.start_s;
    op.end_s = stats.end_s;
    if (i < workload.ops.size()) op.after = workload.ops[i].after;
    data.ops.push_back(std::move(op));
  }
  data.tiles.reserve(result.tile_spans.size());
  for (const auto& span : result.tile_spans) {
    data.tiles.push_back(
        TraceTile{span.op, span.unit, span.slot, fs_to_seconds(span.start_fs), fs_to_seconds(span.end_fs)});
  }
  // Bandwidth of the device-scope levels and DRAM (unit-scope levels are per unit and far from binding).
  std::vector<std::string> levels;
  for (const auto& level : hardware.levels) {
    if (level.scope == LevelScope::device) levels.push_back(level.name);
  }
  if (hardware.dram) levels.emplace_back("dram");
  for (const auto& level : levels) {
    std::vector<Bytes> bytes;
    for (const auto& stats : result.ops) {
      Bytes b = 0;
      for (const auto& [name, value] : stats.bytes) {
        if (name == level) b = value;
      }
      bytes.push_back(b);
    }
    data.counters.push_back(spread_bandwidth(level + " bandwidth", data.ops, bytes));
  }
  data.counters_note =
      "bandwidth counters spread each op's measured bytes at the level evenly over its first tile to its end";
  return data;
}

}  // namespace roofsim
