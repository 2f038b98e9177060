#pragma once
// The output folder of a sweep and what is collected from it. Layout:
//   DIR/sweep.json             the manifest: the sweep's definition, so that `merge` and a resume know the points
//   DIR/points/p0007/          one folder per point: the point command's report.json, ops.csv, stdout.txt,
//                              stderr.txt, and `done` (the point's definition) once it succeeded, or error.txt
//   DIR/sweep.csv, sweep_totals.csv, sweep.svg, sweep_roofline.svg
// sweep.csv has a row per point and op (and one row with its status for a point that did not run), sweep_totals.csv a
// row per point with its totals; both carry the axis values as columns, in point order, so they are the same however
// the points were run (all at once, in shards, through GNU parallel) and merged.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_spec.h"

namespace roofsim {

// The manifest holds the spec (without its file path, which may differ between machines) as JSON.
[[nodiscard]] nlohmann::ordered_json sweep_manifest(const SweepSpec& spec);
[[nodiscard]] SweepSpec spec_from_manifest(const nlohmann::ordered_json& manifest);
// What must agree for two folders to hold results of the same sweep.
[[nodiscard]] std::string manifest_fingerprint(const nlohmann::ordered_json& manifest);
// Writes DIR/sweep.json (atomically: shards may write it at once), or checks that the one there is the same sweep.
// Throws InputError when the folder holds another sweep.
void write_or_check_manifest(const SweepSpec& spec, const std::filesystem::path& dir);
[[nodiscard]] nlohmann::ordered_json read_manifest(const std::filesystem::path& dir);

[[nodiscard]] std::string point_dir_name(std::size_t index, std::size_t point_count);  // "p0007"
[[nodiscard]] std::filesystem::path point_dir(const std::filesystem::path& dir, std::size_t index,
                                              std::size_t point_count);
// The text of a point's `done` marker: its mode, scenario and overrides. A marker with other text is stale.
[[nodiscard]] std::string point_definition(const SweepSpec& spec, const SweepPoint& point);
[[nodiscard]] bool point_done(const std::filesystem::path& point_folder, const std::string& definition);

// dropped: the point breaks a budget of the sweep's constraints and was not run.
enum class PointStatus { ok, failed, missing, dropped };

struct OpRow {
  std::string op;                              // op name ("total" for a point's totals)
  std::vector<std::string> cells;              // per metric, as written to the CSV ("" for null)
  std::vector<std::optional<double>> numbers;  // per metric, when numeric
};

struct PointResult {
  std::size_t index = 0;
  PointStatus status = PointStatus::missing;
  std::string error;
  std::vector<OpRow> rows;  // ops in report order
  OpRow total;              // the point's totals (total_row)
  nlohmann::json report;    // report.json of an ok point
};

// A metric of one op of report.json: a dotted path into the op object, or a derived metric
// (attainable_flops_per_s = the binding ceiling, roofline_time_s = useful_flops / attainable_flops_per_s).
[[nodiscard]] nlohmann::json op_metric(const nlohmann::json& op, const std::string& metric);
// The total row: sim_time_s from the report's total; FLOPs, bytes and roofline_time_s summed over ops;
// achieved and attainable FLOP/s as total FLOPs over total time; other metrics (bound_by, OI) left empty.
[[nodiscard]] OpRow total_row(const nlohmann::json& report, const std::vector<std::string>& metrics);

// Reads a point's result from the first folder (of several shards' folders) where it is done.
[[nodiscard]] PointResult collect_point(const SweepSpec& spec, const SweepPoint& point,
                                        const std::vector<std::filesystem::path>& dirs);

// The points a point's Pareto optimality is judged among: those with the same workload (the values of its workload
// axes, `workload` and `workload.*`), since a design is compared with others on the same work.
[[nodiscard]] std::string pareto_group(const SweepSpec& spec, const SweepPoint& point);
// Per point, whether it is Pareto-optimal over the sweep's objectives among the points of its group that ran (all
// false without objectives).
[[nodiscard]] std::vector<bool> pareto_marks(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                             const std::vector<PointResult>& results);

// With design figures (SweepSpec::uses_design), sweep.csv and sweep_totals.csv add after the axes the trade's `take`
// value, then area_mm2, filler_mm2, cost_usd, tdp_w and pareto (yes/no); a dropped point's error names the budgets it
// breaks.
void write_sweep_csv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                     const std::vector<PointResult>& results, std::ostream& out);
// sweep_totals.csv: one row per point, its status, its total of each metric (total_row) and its error.
void write_sweep_totals_csv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                            const std::vector<PointResult>& results, std::ostream& out);

// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
[[nodiscard]] std::string csv_field(const std::string& text);

}  // namespace roofsim
