#pragma once
// What a simulated run measured, per op and per memory level. Reports and the roofline read this;
// no model writes a file.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/tile_spans.h"
#include "models/power/power_stats.h"
#include "sim/core/units.h"

namespace roofsim {

// What the detailed DRAM model measured for one op's requests (sim/engine/dram_op_stats.h); `measured` is false
// with the simple model or when the op moved no DRAM bytes.
struct OpDramStats {
  bool measured = false;
  std::uint64_t bursts = 0;
  std::uint64_t row_opens = 0;    // parts that opened a row: one row miss each, their other bursts hit
  std::uint64_t turnarounds = 0;  // data-bus direction changes charged to the op
  double row_hit_rate = 0;        // h = 1 - row_opens / bursts, per burst as B(h) counts (dram_bandwidth.h)
  double refresh_share = 0;       // channel-time blocked by refreshes charged to the op / (channels x sim time)
  double efficiency = 0;          // DRAM bytes / (sim time x pin bandwidth): the share of peak the op drew
  BytesPerSecond ceiling_bytes_per_s = 0;  // B(h) at the measured h
  Seconds row_miss_loss_s = 0;             // bytes x (1/B(h) - 1/B_hit): row misses at the measured h
  Seconds refresh_loss_s = 0;              // refresh channel-time charged to the op / channels
  Seconds turnaround_loss_s = 0;           // turnarounds x their bus gap / channels
  // DRAM commands charged to the op (RD and WR per burst; refreshes issued just before its parts, per-bank ones
  // separately), the counts its per-command DRAM energy comes from.
  std::uint64_t acts = 0, pres = 0, reads = 0, writes = 0, refs_all_bank = 0, refs_per_bank = 0;
};

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
  // Resident time the op's primary engine stood idle waiting on another engine, by that engine's name ("vector",
  // "special_function"): carved out of the memory waits, which the resident time less busy would otherwise hold.
  std::vector<std::pair<std::string, Seconds>> wait_engines_s;
  std::string primary_engine;  // the engine whose time busy_s is (the op's binding engine)
  // The work the op executed per kind (FLOPs on its own engine; vector, special-function operations).
  Flops engine_flops = 0;
  std::uint64_t vector_fma_ops = 0, vector_alu_ops = 0, exp2_ops = 0, reciprocal_ops = 0, rsqrt_ops = 0;
  // Busy time split by the compute clock's DVFS state (PowerRunStats::states order), and the part of busy_s the
  // steps would not have taken at the nominal clock (clock_domain.h, throttling_loss_s): the time throttling cost.
  std::vector<Seconds> busy_at_state_s;
  Seconds throttle_s = 0;
  OpDramStats dram;
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
  // False when a signal stopped the simulation: `ops` (and power.ops) then hold only the ops that finished, and
  // finished_op_indices says where each sits in the workload.
  bool complete = true;
  std::vector<std::size_t> finished_op_indices;
  std::uint64_t units = 0;
  std::string dram_model;  // "simple", "detailed", or "" without DRAM
  Seconds sim_time_s = 0;
  std::vector<OpRunStats> ops;
  std::vector<LevelRunStats> levels;  // SRAM levels, then "dram"
  PowerRunStats power;                // energy per op and in total, DVFS residency, the power and clock trace
  // Conservation with the detailed DRAM: the engine's requests rounded out to bursts, and bursts x burst size served.
  Bytes dram_asked_burst_bytes = 0;
  Bytes dram_served_burst_bytes = 0;
  double dram_row_hit_rate = 0;          // over every burst of the run
  double dram_refresh_time_share = 0;    // the controller's: bank time blocked by refresh
  std::uint64_t events = 0;              // timed model events handled (Device::events)
  std::uint64_t kernel_activations = 0;  // SystemC process runs they cost (the device scheduler's)
  std::uint64_t processes = 0;           // SystemC processes of the model (units, dispatcher, DRAM)
  std::vector<TileSpan> tile_spans;      // when each tile ran where (for trace.json)
  // Memoized execution (sim/engine/op_replay.h): ops replayed from a recorded twin, ops simulated and recorded, and
  // distinct signatures kept; all 0 with --exact.
  std::uint64_t ops_replayed = 0, ops_recorded = 0, memo_signatures = 0;
  // Steady-state fast-forward (wave_fast_forward.h): ops, whole waves and steps inside tiles skipped, and the skips
  // inside tiles that ran through a change of the clock.
  std::uint64_t ops_fast_forwarded = 0, waves_skipped = 0, steps_skipped = 0, skips_through_changes = 0;
  Seconds wall_s = 0;
};

}  // namespace roofsim
