#pragma once
// The writers of the report model (sim/results/report_model.h): report.json, ops.csv, the console table, and the
// folder of files a `roofline` or `run` command leaves.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>

#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// report.json, exactly the shape of DESIGN.md section 6 plus the names of hardware and workload and the units.
[[nodiscard]] nlohmann::ordered_json report_json(const Report& report);
void write_report_json(const Report& report, std::ostream& out);

// ops.csv: one row per op, units in the column names, empty cells for null.
void write_ops_csv(const Report& report, std::ostream& out);

// The console table: one row per op, units in the column headers.
void write_console_table(const Report& report, std::ostream& out);

// Writes report.json, ops.csv, roofline.svg and energy.svg into `dir`, each whole or not at all (output_file.h).
// Throws OutputError when a file cannot be written.
void write_report_files(const Report& report, const DeviceRoof& device, const std::filesystem::path& dir);

}  // namespace roofsim
