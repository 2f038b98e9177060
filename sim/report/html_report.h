#pragma once
// report.html of `roofsim run` and `roofsim roofline` (the report model: the roofline chart with zoom, hover and
// filters, the gap to the binding ceiling by cause, the sortable op table) and of `roofsim sweep` (its charts and
// sweep.csv as a sortable, filterable table). The page itself is html_page.h.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>

#include "sim/results/report_model.h"

namespace roofsim {

// The page's data: the device's lines and, per op, the figures the chart, tooltip, gap bars and table show.
[[nodiscard]] nlohmann::ordered_json report_page_data(const Report& report);
void write_report_html(const Report& report, std::ostream& out);
// Writes `dir`/report.html whole or not at all (output_file.h); throws OutputError. The command names it among the
// files it wrote.
void write_report_html_file(const Report& report, const std::filesystem::path& dir);

// The sweep page from the files a sweep leaves in `dir` (sweep_totals.csv, sweep.csv, sweep.svg, sweep_roofline.svg;
// those missing are left out); `name` is the sweep's.
void write_sweep_html(const std::string& name, const std::filesystem::path& dir, std::ostream& out);
void write_sweep_html_file(const std::string& name, const std::filesystem::path& dir);

}  // namespace roofsim
