#pragma once
// The charts of a sweep. sweep.svg: one panel per axis, the chosen metric (of the chosen op, or the total) against
// that axis, log where the axis is geometric, one line per combination of the other axes' values. sweep_roofline.svg:
// every op of every point on the roofline of the base scenario's device, drawn by the report's roofline writer.
// Axis ticks reuse the report's decade labels and text metrics (sim/report), so both charts read alike.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_spec.h"

namespace roofsim {

// One line of a panel: points (x, y) in data units, in axis order; a missing y breaks the line.
struct ChartSeries {
  std::string label;
  std::vector<std::optional<double>> y;  // one per value of the panel's axis
};

// Where the tiles per compute unit of the charted op step from `tiles_per_unit` - 1 to `tiles_per_unit`: the busiest
// unit runs one tile more (a new wave, or a unit's resident tiles sharing its engines), the wave-quantization tooth.
struct WaveBoundary {
  double x = 0;  // on the panel's axis, in data units
  std::uint64_t tiles_per_unit = 0;
};

// The boundaries between consecutive axis values whose tile counts (nullopt: unknown) give different
// ceil(tiles / units): at the position where the count passes (tiles_per_unit - 1) x units, interpolated linearly
// between the two values (the count grows linearly with a size axis between them).
[[nodiscard]] std::vector<WaveBoundary> wave_boundaries(const std::vector<double>& x,
                                                        const std::vector<std::optional<std::uint64_t>>& tiles,
                                                        std::uint64_t units);

struct ChartPanel {
  std::string x_title;
  std::string reference_label;          // what `references` show ("roofline ceiling"); empty: none
  std::vector<ChartSeries> references;  // per series, its ceiling at each value (dashed, in the series' colour)
  AxisScale x_scale = AxisScale::linear;
  std::vector<std::string> x_labels;  // the axis values as written
  std::vector<double> x;              // their positions in data units (index for a category axis)
  std::vector<ChartSeries> series;
  std::uint64_t units = 0;                    // the device's compute units, for the wave boundaries' legend
  std::vector<WaveBoundary> wave_boundaries;  // dotted vertical lines
};

// The panels of sweep.svg: one per axis; for a grid, a series per combination of the other axes' values; for a zip,
// one series. With the device's `units`, a numeric axis along which the charted op's tile count (report.json's
// `tiles`: the op named by chart.op, or a point's only op) changes, the same for every series, gets its wave
// boundaries (none when a sweep axis sets compute.units).
[[nodiscard]] std::vector<ChartPanel> sweep_panels(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                                   const std::vector<PointResult>& results, std::uint64_t units = 0);

void write_sweep_svg(const SweepSpec& spec, const std::vector<ChartPanel>& panels, std::ostream& out);

// The unit of a metric, from its name: "FLOP/s" (achieved_flops_per_s, ceilings.*), "s" (sim_time_s), "FLOP", "B"
// (bytes.*), "FLOP/B" (oi.*), else "" (bound_by, counts).
[[nodiscard]] std::string metric_unit(const std::string& metric);

// The metric in words for an axis title: "Achieved performance" (achieved_flops_per_s), "Simulated time"
// (sim_time_s), "Bytes at dram" (bytes.dram); other names with their underscores as spaces.
[[nodiscard]] std::string metric_title(const std::string& metric);

// Linear ticks at 1, 2 or 5 x 10^k covering [lo, hi], about `target` of them.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int target);

// Writes sweep.svg and sweep_roofline.svg into `dir`, each whole or not at all; throws OutputError.
void write_sweep_charts(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        const std::vector<PointResult>& results, const std::filesystem::path& dir);

}  // namespace roofsim
