#pragma once
// A sweep file: a base scenario (hardware, workload, --set overrides) and axes, each a --set key with a list of
// values or a range, combined as a full grid or zipped, plus the metrics to collect. Expanding it gives the points,
// in a fixed order (the first axis varies slowest), each with the overrides that define it. Plain C++, no processes.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"
#include "sim/config/work_limits.h"
#include "sim/core/input_error.h"
#include "sim/sweep/design_sweep.h"

namespace roofsim {

enum class AxisScale { linear, log, category };

struct SweepAxis {
  std::string key;                  // a --set key ("memory.l2.capacity", "workload.params.batch")
  std::string label;                // column name in sweep.csv (default: the key)
  std::vector<std::string> values;  // as passed to --set ("8MiB", "64")
  AxisScale scale = AxisScale::linear;
  SourcePos key_pos;               // of `key` in the sweep file, for errors found after parsing (unknown --set keys)
  SourcePos values_pos;            // of `values` (or `from`), for values the key does not accept
  std::vector<std::string> files;  // of a hardware or workload axis: each value's file, resolved as sweep.hardware is
};

enum class SweepCombine { grid, zip };

struct SweepSpec {
  std::filesystem::path file;
  std::string name;
  std::string description;
  std::string mode = "run";  // the roofsim command each point runs: "run" or "roofline"
  std::string hardware;      // a bundled device name or an absolute path
  std::string workload;      // a bundled workload name or an absolute path; empty when the sweep runs a model
  std::string model;         // a bundled model name or a config.json's absolute path, run with --model; or empty
  std::vector<Override> base_overrides;
  std::vector<SweepAxis> axes;
  SweepCombine combine = SweepCombine::grid;
  std::vector<std::string> metrics;        // op fields of report.json ("sim_time_s", "ceilings.classic", "bytes.dram")
  std::string chart_metric;                // the metric sweep.svg draws
  std::string chart_op = "total";          // the op (or "total") whose metric sweep.svg draws
  std::optional<AxisScale> chart_y_scale;  // default: log when the values span more than a decade
  // Design-space keys (sim/sweep/design_sweep.h): a trade at constant die area, budgets, Pareto objectives (each
  // minimized: a metric of the total row, or area, cost, tdp).
  std::optional<SweepTrade> trade;
  std::vector<SweepConstraint> constraints;
  std::vector<std::string> pareto;
  // Positions in the sweep file, for errors found after parsing (empty for a spec read back from sweep.json).
  SourcePos hardware_pos, workload_pos, model_pos, set_pos, trade_pos;

  // True when points carry design figures (a trade, constraints or a Pareto objective).
  [[nodiscard]] bool uses_design() const { return trade.has_value() || !constraints.empty() || !pareto.empty(); }
};

// The axis keys that sweep the device, the workload or the model itself rather than one of their keys: their values
// are bundled names (or files relative to the sweep file), each point running on its own file (a model's with
// --model, its workload.* keys those of `roofsim run --model`).
inline constexpr const char* kHardwareAxisKey = "hardware";
inline constexpr const char* kWorkloadAxisKey = "workload";
inline constexpr const char* kModelAxisKey = "model";

struct SweepPoint {
  std::size_t index = 0;
  std::string hardware;                  // the device file this point runs on: the hardware axis' value, else the base
  std::string workload;                  // likewise its workload file (empty when it runs a model)
  std::string model;                     // the model it runs with --model: the model axis' value, else the base
  std::vector<std::size_t> value_index;  // per axis, the index into its values
  std::vector<std::string> values;       // per axis, the value text
  std::vector<Override> overrides;       // base overrides, then one per axis (but the hardware and workload axes)
  // Of a sweep that uses the design model: the trade's value of its `take` key (its override is in `overrides`), the
  // point's figures, and the budgets it breaks (a point that breaks one is dropped, not run).
  std::string take_value;
  std::optional<DesignFigures> design;
  std::string dropped_by;
};

[[nodiscard]] const KeyRegistry& sweep_registry();

// Parses and checks a sweep file; errors are InputErrors naming file:line:column and the key. A sweep of more than
// `limits.sweep_points` points is refused from the lengths of its axes, before any point exists.
[[nodiscard]] SweepSpec load_sweep(const std::filesystem::path& file, const WorkLimits& limits = {});
// Parses sweep text held in memory; relative hardware/workload paths resolve against `base_dir`.
[[nodiscard]] SweepSpec parse_sweep(std::string_view text, const std::string& name,
                                    const std::filesystem::path& base_dir, const WorkLimits& limits = {});

// Checks, before any point runs, what would otherwise fail every point: the hardware, workload and model files exist,
// each key the sweep sets (in `set` and on the axes) is a known hardware or workload key, each value it sets is one
// the key accepts (type, unit, range, as --set checks it), and a `workload.params.NAME` is a parameter the workload
// file defines (--set would add an unused one silently). With a model (sweep.model, a model axis, or workload files
// built from a model) the workload keys are the model's (workload.phase, workload.batch, ...). Errors name the sweep
// file, the position, the key and the value.
void check_sweep_keys(const SweepSpec& spec);

// The number of points: the product of the axes' lengths (grid) or their common length (zip); saturates at the
// largest std::uint64_t.
[[nodiscard]] std::uint64_t point_count(const SweepSpec& spec);

// The file of a sweep's hardware: a device file, a bundled device by name, or else a bundled cluster by name, as
// `roofsim run --hw` resolves it.
[[nodiscard]] std::filesystem::path resolve_sweep_hardware(const std::string& hardware);

// The points of a sweep in order: a grid varies the last axis fastest; zip takes the i-th value of every axis. A sweep
// that uses the design model loads each point's hardware to solve its trade, figures and budgets.
[[nodiscard]] std::vector<SweepPoint> expand_points(const SweepSpec& spec);
// The design part of expand_points: solves each point's trade, computes its figures and the budgets it breaks.
void add_design_figures(const SweepSpec& spec, std::vector<SweepPoint>& points);

// The values of a range: from, from*factor, ... up to `to` (geometric), or from, from+step, ... (linear); each
// value computed from the start (no accumulated rounding); integers are written without a decimal point.
[[nodiscard]] std::vector<std::string> range_values(double from, double to, std::optional<double> step,
                                                    std::optional<double> factor, const std::string& unit);

// The leading number of a value text ("16MiB" -> 16 * 2^20 when it parses as a quantity, "64" -> 64); nullopt
// when it is not numeric.
[[nodiscard]] std::optional<double> numeric_value(const std::string& text);

// Slice K of N: points whose index % N == K (round robin, so slices of a geometric axis take similar time).
[[nodiscard]] bool in_shard(std::size_t index, std::size_t shard, std::size_t shards);

// "memory.l2.capacity=16MiB"
[[nodiscard]] std::string override_text(const Override& entry);

}  // namespace roofsim
