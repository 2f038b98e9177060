#pragma once
// The report data model shared by `roofsim roofline` and `roofsim run`: per op its counts, intensities, the six
// ceilings with binding and bound_by, and (in `run`) the simulated time. The writers of sim/report (console table,
// report.json, ops.csv, roofline.svg) read only this model; no model or command formats numbers itself.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/roofline/chart_lines.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

struct OpReport {
  std::string name;
  std::string kind;  // "gemm", "softmax", ...
  DataType dtype = DataType::fp16;
  std::string engine;  // the engine the op runs on
  Flops useful_flops = 0;
  Flops executed_flops = 0;       // with padded tiles in `run`; = useful in `roofline`
  std::vector<LevelBytes> bytes;  // per level, from the units outward ("dram" last where present)
  Bytes network_bytes = 0;
  double row_hit_rate = 1.0;
  RooflineResult roofline;
  std::optional<Seconds> sim_time_s;                   // null in `roofline` output
  std::optional<FlopsPerSecond> achieved_flops_per_s;  // null in `roofline` output
  std::optional<Joules> energy_j;                      // simulated energy (`run`); energy.svg models it otherwise
  // Fields a later producer (the run's figures, sim/results/run_report.h) adds to the op's JSON object, after the
  // contract's keys.
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();

  [[nodiscard]] Bytes bytes_at(std::string_view level) const;
  [[nodiscard]] FlopsPerByte oi_at(std::string_view level) const;  // +inf when no bytes
  [[nodiscard]] FlopsPerSecond attainable_flops_per_s() const {
    return roofline.ceilings[roofline.binding].flops_per_s;
  }
  // Where the chart puts the op: the achieved rate where simulated, else the binding ceiling.
  [[nodiscard]] FlopsPerSecond chart_flops_per_s() const {
    return achieved_flops_per_s ? *achieved_flops_per_s : attainable_flops_per_s();
  }
};

// An input file of the run and the SHA-256 of its bytes, so that a report names exactly what it was computed from.
struct InputFileDigest {
  std::string role;  // "hardware", "dram", "cluster", "workload"
  std::string path;
  std::string sha256;
};

// How the report was made: the command line, its --set overrides, and the input files' digests (sim/cli fills it).
struct Provenance {
  std::string command_line;            // "roofsim" and the arguments, shell-quoted where needed
  std::vector<std::string> overrides;  // each --set KEY=VALUE as given
  std::vector<InputFileDigest> inputs;
};

// The DRAM model the run used; absent for a device without DRAM.
struct DramModelInfo {
  std::string model;     // "simple" or "detailed"
  std::string standard;  // "HBM3-6400"
};

struct Report {
  std::string command = "roofline";  // "roofline" or "run"
  Provenance provenance;
  std::optional<DramModelInfo> dram;
  // False for a run a signal stopped: `ops` holds the ops that finished (report.json says "complete": false; a
  // complete report leaves the key out).
  bool complete = true;
  std::string bytes_basis = "compulsory";  // "compulsory" (roofline) or "simulated" (run)
  std::string hardware_name;
  std::string hardware_file;
  std::string workload_name;
  std::string workload_file;
  std::vector<std::string> levels;     // level names in order (the columns), "dram" last where present
  std::string main_memory;             // the level OI is plotted against
  std::optional<RooflineLines> roofs;  // the device's lines (peaks, bandwidths, ridges), written as "device"
  std::vector<OpReport> ops;
  std::optional<Seconds> total_sim_time_s;  // null in `roofline` output
  // Run-level fields a later producer adds to report.json after "total" (`run`: "power").
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();

  [[nodiscard]] Flops total_useful_flops() const;
};

}  // namespace roofsim
