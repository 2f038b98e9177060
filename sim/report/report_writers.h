#pragma once
// The writers of the report model (sim/results/report_model.h): report.json, ops.csv, the console table, and the
// folder of files a `roofline` or `run` command leaves.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/report/console_table.h"
#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim {

// The version of report.json's shape (docs/report.schema.json); a change a reader must know about raises it.
inline constexpr int kReportSchemaVersion = 1;

// A cluster run's step row (a rank's whole step), which report.json and the CSVs keep apart from the ops.
[[nodiscard]] bool is_step_row(const OpReport& op);

// report.json (docs/report.schema.json): DESIGN.md section 6's shape plus the schema and roofsim versions, the command
// line, overrides and input digests, the names of hardware, workload and DRAM model, and the units. Every key is
// lowercase snake_case; no number is -0.
[[nodiscard]] nlohmann::ordered_json report_json(const Report& report);
void write_report_json(const Report& report, std::ostream& out);

// ops.csv: one row per op (a cluster's step rows go to steps.csv), the fixed columns of ops_csv_columns() whatever
// the device, command or DRAM model (docs/outputs.md), units in the column names, empty cells for null.
[[nodiscard]] const std::vector<std::string>& ops_csv_columns();
void write_ops_csv(const Report& report, std::ostream& out);
// steps.csv: a cluster run's step rows, in the columns of ops.csv.
void write_steps_csv(const Report& report, std::ostream& out);
// levels.csv: the bytes and intensity of every op at every memory level, one row per op and level (long form, since
// the levels differ from device to device).
void write_levels_csv(const Report& report, std::ostream& out);

struct TableOptions {
  bool wide = false;  // every column (each level's bytes, the six ceilings), however wide
};

// The console table: one row per op, units in the column headers; within kConsoleColumns unless `wide`.
void write_console_table(const Report& report, std::ostream& out, const TableOptions& options = {});

// One line per op: its name, what binds it, its time (simulated, or the binding ceiling's), rate and efficiency.
void write_summary(const Report& report, std::ostream& out);

// Writes report.json, ops.csv, levels.csv, steps.csv (cluster runs), roofline.svg and energy.svg into `dir`, each whole
// or not at all (output_file.h), and returns the names of the files written. Throws OutputError when a file cannot be
// written.
std::vector<std::string> write_report_files(const Report& report, const DeviceRoof& device,
                                            const std::filesystem::path& dir);

}  // namespace roofsim
