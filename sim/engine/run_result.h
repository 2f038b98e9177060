#pragma once
// What a simulated run measured, per op and per memory level (issue 4 item 7). Reports and the roofline read this;
// no model writes a file.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/tile_spans.h"
#include "models/power/power_stats.h"
#include "sim/core/units.h"

namespace roofsim {

struct OpRunStats {
  std::string name;
  std::string kind;
  bool simulated = true;
  std::string note;        // "not simulated: single device" for collectives
  std::string tiling;      // "gemm tile 128x128x64"
  Seconds launch_s = 0;    // inputs ready and a stream taken
  Seconds start_s = 0;     // launch latency over: first tile may start
  Seconds end_s = 0;       // last tile (and its writes) done
  Seconds sim_time_s = 0;  // end - launch: the op's simulated time, launch latency included
  Flops useful_flops = 0;
  Flops executed_flops = 0;
  std::vector<std::pair<std::string, Bytes>> bytes;  // per level, from the units outward, "dram" last
  FlopsPerSecond achieved_flops_per_s = 0;           // useful FLOPs / sim_time_s
  std::uint64_t tiles = 0;
  std::uint64_t waves = 0;  // ceil(tiles / (units x occupancy))
  // Unit-time over the op's span [queued, end], by what the units did (their sum is units x span).
  Seconds span_s = 0;
  Seconds busy_s = 0;                 // engines computing the op's steps
  Seconds wait_memory_latency_s = 0;  // tiles resident, waiting on unloaded latency or the request limit
  Seconds wait_bandwidth_s = 0;       // tiles resident, waiting in queues of ports and channels
  Seconds wait_dependencies_s = 0;    // a stream was free but the inputs were not ready
  Seconds wait_launch_s = 0;          // launch latency
  Seconds wait_dispatch_s = 0;        // unit not yet (or not again) given a tile of the op while others ran
  Seconds tail_s = 0;                 // idle units after their last tile (the last wave's tail)
};

struct LevelRunStats {
  std::string name;
  Bytes read_bytes = 0;
  Bytes write_bytes = 0;
  Bytes hit_bytes = 0;
  Bytes miss_bytes = 0;
  double utilization = 0;  // busy port-time / (ports x run time)
};

struct RunResult {
  std::string device;
  std::string workload;
  std::uint64_t units = 0;
  std::string dram_model;  // "simple", "detailed", or "" without DRAM
  Seconds sim_time_s = 0;
  std::vector<OpRunStats> ops;
  std::vector<LevelRunStats> levels;  // SRAM levels, then "dram"
  PowerRunStats power;                // energy per op and in total, DVFS residency, the power and clock trace
  std::uint64_t events = 0;           // process activations
  std::uint64_t processes = 0;        // SystemC processes of the model (units and dispatcher)
  std::vector<TileSpan> tile_spans;   // when each tile ran where (for trace.json)
  Seconds wall_s = 0;
};

}  // namespace roofsim
