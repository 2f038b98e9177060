#pragma once
// roofline.svg: a log-log roofline chart of one report, written by hand (DESIGN.md section 7: no Debian charting
// library draws a publication-quality roofline). Deterministic: fixed coordinate formatting, fixed order.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// Decade ticks with SI labels on both axes; a compute line per engine and peak (data types sharing a peak share a
// line); a bandwidth line per memory level; the DRAM all-hit and all-miss lines; the power-capped curve of the
// ops' main data types; the latency (Little's law) line; the network line; ridge points against the main memory;
// each op a point at (OI against the main memory, its binding ceiling) coloured by bound_by and labelled without
// overlaps; a legend. Class names on the elements (plot-area, op, tick-x, tick-y, op-label) let tests parse it.
// Returns the label placer's work, which stays bounded however many ops the report has (a unit test checks it).
struct ChartWork {
  std::uint64_t label_comparisons = 0;  // candidate boxes tested against reserved boxes and lines
};
ChartWork write_roofline_svg(const Report& report, const DeviceRoof& device, std::ostream& out);

// "1", "10", "100", "1k", "10k", "1M", ... and "0.1", "0.01", "1m" for the decade 10^exponent.
[[nodiscard]] std::string decade_label(int exponent);

}  // namespace roofsim
