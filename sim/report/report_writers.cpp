#include "sim/report/report_writers.h"

#include <algorithm>

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "sim/core/output_file.h"
#include "sim/core/version.h"
#include "sim/report/energy_chart.h"
#include "sim/report/gap_columns.h"
#include "sim/report/svg_chart.h"

namespace roofsim {

namespace {

using Json = nlohmann::ordered_json;

// Doubles in text outputs: shortest round-trip form (fmt's default), so the same value always prints the same bytes.
std::string number_text(double value) {
  return fmt::format("{}", value == 0.0 ? 0.0 : value);  // never "-0"
}

Json nullable(std::optional<double> value) {
  return value ? Json(*value) : Json(nullptr);
}

// A finite double, or null (an intensity with no bytes is not a number JSON can carry).
Json finite_or_null(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Four significant digits for the console; the files keep full precision.
std::string short_number(double value) {
  if (!std::isfinite(value)) return "-";
  return fmt::format("{:.4g}", value);
}

bool same_bytes_at_every_level(const Report& report) {
  for (const auto& op : report.ops) {
    for (const auto& entry : op.bytes) {
      if (entry.bytes != op.bytes.front().bytes) return false;
    }
  }
  return true;
}

// A name used as a JSON key ("dram all-hit"): lowercase letters, digits and '_' only, so every key is an identifier
// in the languages that read the report.
std::string json_key(const std::string& name) {
  std::string key;
  for (const char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (keep) {
      key += c;
    } else if (c >= 'A' && c <= 'Z') {
      key += static_cast<char>(c - 'A' + 'a');
    } else if (!key.empty() && key.back() != '_') {
      key += '_';
    }
  }
  while (!key.empty() && key.back() == '_') key.pop_back();
  return key;
}

// JSON writes -0.0 as "-0.0"; a signed zero carries no meaning in a report.
void without_negative_zero(Json& value) {
  if (value.is_number_float()) {
    if (value.get<double>() == 0.0) value = 0.0;
  } else if (value.is_structured()) {
    for (auto& child : value) without_negative_zero(child);
  }
}

Json op_json(const OpReport& op) {
  Json entry;
  entry["name"] = op.name;
  entry["kind"] = op.kind;
  entry["dtype"] = std::string(to_string(op.dtype));
  entry["engine"] = op.engine;
  entry["useful_flops"] = op.useful_flops;
  entry["executed_flops"] = op.executed_flops;
  Json bytes = Json::object();
  Json oi = Json::object();
  for (const auto& level : op.bytes) {
    bytes[level.level] = level.bytes;
    oi[level.level] = finite_or_null(op.oi_at(level.level));
  }
  entry["bytes"] = bytes;
  entry["oi"] = oi;
  entry["network_bytes"] = op.network_bytes;
  entry["row_hit_rate"] = op.row_hit_rate;
  Json ceilings = Json::object();
  Json ceiling_time = Json::object();
  Json ceiling_bound_by = Json::object();
  for (const auto variant : kAllVariants) {
    const auto& ceiling = op.roofline.ceilings[variant];
    ceilings[std::string(to_string(variant))] = ceiling.flops_per_s;
    ceiling_time[std::string(to_string(variant))] = finite_or_null(ceiling.time_s);
    ceiling_bound_by[std::string(to_string(variant))] = ceiling.bound_by;
  }
  entry["ceilings"] = ceilings;
  entry["ceiling_time_s"] = ceiling_time;
  entry["ceiling_bound_by"] = ceiling_bound_by;
  entry["binding"] = std::string(to_string(op.roofline.binding));
  entry["bound_by"] = op.roofline.bound_by;
  entry["sim_time_s"] = nullable(op.sim_time_s);
  entry["achieved_flops_per_s"] = nullable(op.achieved_flops_per_s);
  for (const auto& [key, value] : op.extra.items()) entry[key] = value;
  return entry;
}

}  // namespace

bool is_step_row(const OpReport& op) {
  return op.kind == "step";
}

Json report_json(const Report& report) {
  Json root;
  root["schema_version"] = kReportSchemaVersion;
  root["roofsim_version"] = roofsim_version();
  root["command"] = report.command;
  if (!report.complete) root["complete"] = false;
  root["command_line"] = report.provenance.command_line;
  root["overrides"] = report.provenance.overrides;
  Json inputs = Json::array();
  for (const auto& input : report.provenance.inputs) {
    inputs.push_back({{"role", input.role}, {"path", input.path}, {"sha256", input.sha256}});
  }
  root["inputs"] = std::move(inputs);
  root["hardware"] = {{"name", report.hardware_name}, {"file", report.hardware_file}};
  root["workload"] = {{"name", report.workload_name}, {"file", report.workload_file}};
  root["dram"] = report.dram ? Json{{"model", report.dram->model}, {"standard", report.dram->standard}} : Json(nullptr);
  root["bytes_basis"] = report.bytes_basis;
  if (report.roofs) {
    // The device's roofs, so a reader of the report needs no hardware file to place the ops.
    Json compute = Json::array();
    for (const auto& line : report.roofs->compute) {
      Json dtypes = Json::array();
      for (const auto dtype : line.dtypes) dtypes.push_back(std::string(to_string(dtype)));
      compute.push_back({{"engine", line.engine}, {"dtypes", dtypes}, {"peak_flops_per_s", line.peak_flops_per_s}});
    }
    Json bandwidth = Json::object();
    for (const auto& line : report.roofs->bandwidth) bandwidth[json_key(line.name)] = line.bandwidth_bytes_per_s;
    Json ridges = Json::array();
    for (const auto& ridge : report.roofs->ridges) {
      ridges.push_back({{"compute", ridge.compute_label}, {"oi", ridge.oi}});
    }
    root["device"] = {{"main_memory", report.main_memory},
                      {"compute", compute},
                      {"bandwidth_bytes_per_s", bandwidth},
                      {"ridges", ridges}};
  }
  root["units"] = {{"useful_flops", "FLOP"}, {"executed_flops", "FLOP"}, {"bytes", "B"},
                   {"network_bytes", "B"},   {"oi", "FLOP/B"},           {"ceilings", "FLOP/s"},
                   {"ceiling_time_s", "s"},  {"sim_time_s", "s"},        {"achieved_flops_per_s", "FLOP/s"}};
  Json ops = Json::array();
  Json steps = Json::array();
  for (const auto& op : report.ops) (is_step_row(op) ? steps : ops).push_back(op_json(op));
  root["ops"] = std::move(ops);
  // A cluster run's step rows (the whole step of a rank against its ceilings) are not ops: they have their own array.
  if (!steps.empty()) root["steps"] = std::move(steps);
  root["total"] = {{"sim_time_s", nullable(report.total_sim_time_s)}, {"useful_flops", report.total_useful_flops()}};
  for (const auto& [key, value] : report.extra.items()) root[key] = value;
  without_negative_zero(root);
  return root;
}

void write_report_json(const Report& report, std::ostream& out) {
  out << report_json(report).dump(2) << "\n";
}

namespace {

std::string optional_cell(std::optional<double> value) {
  return value ? number_text(*value) : std::string();
}

std::optional<double> extra_number(const nlohmann::ordered_json& object, std::initializer_list<const char*> path) {
  const nlohmann::ordered_json* node = &object;
  for (const char* key : path) {
    const auto it = node->find(key);
    if (it == node->end()) return std::nullopt;
    node = &*it;
  }
  return node->is_number() ? std::optional<double>(node->get<double>()) : std::nullopt;
}

// The rows of ops.csv or steps.csv: the fixed columns of ops_csv_columns().
void write_op_rows(const Report& report, bool steps, std::ostream& out) {
  for (const auto& column : ops_csv_columns()) out << (&column == &ops_csv_columns().front() ? "" : ",") << column;
  out << '\n';
  for (const auto& op : report.ops) {
    if (is_step_row(op) != steps) continue;
    const double oi = op.oi_at(report.main_memory);
    out << csv_field(op.name) << ',' << op.kind << ',' << to_string(op.dtype) << ',' << csv_field(op.engine) << ','
        << op.useful_flops << ',' << op.executed_flops << ',' << report.main_memory << ','
        << op.bytes_at(report.main_memory) << ',' << (std::isfinite(oi) ? number_text(oi) : "") << ','
        << op.network_bytes << ',' << number_text(op.row_hit_rate);
    for (const auto variant : kAllVariants) out << ',' << number_text(op.roofline.ceilings[variant].flops_per_s);
    for (const auto variant : kAllVariants) {
      const double seconds = op.roofline.ceilings[variant].time_s;
      out << ',' << (std::isfinite(seconds) ? number_text(seconds) : "");
    }
    std::optional<double> energy_j = op.energy_j;
    if (!energy_j) energy_j = extra_number(op.extra, {"power", "energy_j"});
    out << ',' << to_string(op.roofline.binding) << ',' << op.roofline.bound_by << ',' << optional_cell(op.sim_time_s)
        << ',' << optional_cell(op.achieved_flops_per_s) << ',' << optional_cell(extra_number(op.extra, {"efficiency"}))
        << ',' << optional_cell(energy_j) << ',' << optional_cell(extra_number(op.extra, {"power", "average_power_w"}))
        << gap_csv_cells(op) << ',' << optional_cell(extra_number(op.extra, {"dram", "refresh_share"})) << ','
        << optional_cell(extra_number(op.extra, {"dram", "efficiency"})) << ','
        << optional_cell(extra_number(op.extra, {"dram", "ceiling_bandwidth_B_per_s"})) << '\n';
  }
}

}  // namespace

const std::vector<std::string>& ops_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names = {"name",
                                      "kind",
                                      "dtype",
                                      "engine",
                                      "useful_flops_FLOP",
                                      "executed_flops_FLOP",
                                      "main_memory",
                                      "bytes_main_memory_B",
                                      "oi_main_memory_FLOP_per_B",
                                      "network_bytes_B",
                                      "row_hit_rate"};
    for (const auto variant : kAllVariants)
      names.push_back("ceiling_" + std::string(to_string(variant)) + "_FLOP_per_s");
    for (const auto variant : kAllVariants) names.push_back("ceiling_time_" + std::string(to_string(variant)) + "_s");
    for (const char* name :
         {"binding", "bound_by", "sim_time_s", "achieved_FLOP_per_s", "efficiency", "energy_J", "average_power_W"}) {
      names.emplace_back(name);
    }
    for (const auto& column : gap_csv_columns()) names.push_back(column);
    for (const char* name : {"dram_refresh_share", "dram_efficiency", "dram_ceiling_bandwidth_B_per_s"}) {
      names.emplace_back(name);
    }
    return names;
  }();
  return columns;
}

void write_ops_csv(const Report& report, std::ostream& out) {
  write_op_rows(report, false, out);
}

void write_steps_csv(const Report& report, std::ostream& out) {
  write_op_rows(report, true, out);
}

void write_levels_csv(const Report& report, std::ostream& out) {
  out << "name,level,bytes_B,oi_FLOP_per_B\n";
  for (const auto& op : report.ops) {
    if (is_step_row(op)) continue;
    for (const auto& level : report.levels) {
      const double oi = op.oi_at(level);
      out << csv_field(op.name) << ',' << level << ',' << op.bytes_at(level) << ','
          << (std::isfinite(oi) ? number_text(oi) : "") << '\n';
    }
  }
}

namespace {

std::string time_us_text(std::optional<double> seconds) {
  return seconds && std::isfinite(*seconds) ? short_number(*seconds * 1e6) : "-";
}

std::string efficiency_text(const OpReport& op) {
  const auto efficiency = op.extra.find("efficiency");
  if (efficiency == op.extra.end() || !efficiency->is_number()) return "-";
  return fmt::format("{:.1f}", 100.0 * efficiency->get<double>());
}

// Every column: the op, its counts, each level's bytes, the six ceilings, binding, and in `run` the simulated figures.
void write_wide_table(const Report& report, std::ostream& out) {
  std::vector<TableColumn> columns = {{"op", "", true}, {"kind", "", true}, {"dtype", "", true}, {"useful", "GFLOP"}};
  const bool one_bytes_column = same_bytes_at_every_level(report);
  if (one_bytes_column) {
    columns.push_back({report.levels.size() > 1 ? "bytes (each level)" : "bytes", "MB"});
  } else {
    for (const auto& level : report.levels) columns.push_back({"bytes " + level, "MB"});
  }
  columns.push_back({"OI " + report.main_memory, "FLOP/B"});
  for (const auto variant : kAllVariants) columns.push_back({std::string(to_string(variant)), "TFLOP/s"});
  columns.push_back({"binding", "", true});
  columns.push_back({"bound_by", "", true});
  const bool run = report.command == "run";
  if (run) {
    columns.push_back({"sim", "us"});
    columns.push_back({"achieved", "TFLOP/s"});
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& op : report.ops) {
    std::vector<std::string> row = {op.name, op.kind, std::string(to_string(op.dtype)),
                                    short_number(static_cast<double>(op.useful_flops) / 1e9)};
    if (one_bytes_column) {
      row.push_back(short_number(op.bytes.empty() ? 0.0 : static_cast<double>(op.bytes.front().bytes) / 1e6));
    } else {
      for (const auto& level : report.levels)
        row.push_back(short_number(static_cast<double>(op.bytes_at(level)) / 1e6));
    }
    row.push_back(short_number(op.oi_at(report.main_memory)));
    for (const auto variant : kAllVariants)
      row.push_back(short_number(op.roofline.ceilings[variant].flops_per_s / 1e12));
    row.push_back(std::string(to_string(op.roofline.binding)));
    row.push_back(op.roofline.bound_by);
    if (run) {
      row.push_back(time_us_text(op.sim_time_s));
      row.push_back(op.achieved_flops_per_s ? short_number(*op.achieved_flops_per_s / 1e12) : "-");
    }
    rows.push_back(std::move(row));
  }
  out << fmt::format("{} on {}: {} ops, {} bytes, OI against {}; ceilings in TFLOP/s\n", report.workload_name,
                     report.hardware_name, report.ops.size(), report.bytes_basis, report.main_memory);
  print_table(columns, rows, out);
}

// The op names are cut no shorter than this while a column can still give way: a name cut to a dozen characters
// ("decoder.l0.~") no longer says which op a row is.
constexpr std::size_t kReadableNameColumns = 28;

// The columns that fit kConsoleColumns: the op, its main-memory bytes and OI, the binding ceiling as a rate and a
// time, and in `run` the simulated time, rate and efficiency; --wide prints every ceiling and level. When the names
// would be cut below kReadableNameColumns, the columns that say least beside the name give way, in this order: the
// data type (named in the title when every op has the same), the kind, the binding ceiling as a rate (its time stays).
void write_compact_table(const Report& report, std::ostream& out) {
  const bool run = report.command == "run";
  enum Column : std::size_t { name_column, kind_column, dtype_column, rate_column = 6 };
  std::vector<TableColumn> columns = {{"op", "", true},
                                      {"kind", "", true},
                                      {"dtype", "", true},
                                      {"useful", "GFLOP"},
                                      {"bytes " + report.main_memory, "MB"},
                                      {"OI", "FLOP/B"},
                                      {"ceiling", "TFLOP/s"},
                                      {"ceiling", "us"},
                                      {"binding", "", true},
                                      {"bound_by", "", true}};
  if (run) {
    columns.push_back({"sim", "us"});
    columns.push_back({"achieved", "TFLOP/s"});
    columns.push_back({"eff", "%"});
  }
  std::vector<std::vector<std::string>> rows;
  std::size_t longest_name = 0;
  for (const auto& op : report.ops) {
    const auto& binding = op.roofline.ceilings[op.roofline.binding];
    std::vector<std::string> row = {op.name,
                                    fitted(op.kind, 13),
                                    std::string(to_string(op.dtype)),
                                    short_number(static_cast<double>(op.useful_flops) / 1e9),
                                    short_number(static_cast<double>(op.bytes_at(report.main_memory)) / 1e6),
                                    short_number(op.oi_at(report.main_memory)),
                                    short_number(binding.flops_per_s / 1e12),
                                    time_us_text(binding.time_s),
                                    std::string(to_string(op.roofline.binding)),
                                    fitted(op.roofline.bound_by, 16)};
    if (run) {
      row.push_back(time_us_text(op.sim_time_s));
      row.push_back(op.achieved_flops_per_s ? short_number(*op.achieved_flops_per_s / 1e12) : "-");
      row.push_back(efficiency_text(op));
    }
    longest_name = std::max(longest_name, op.name.size());
    rows.push_back(std::move(row));
  }
  std::vector<bool> shown(columns.size(), true);
  const auto widths = column_widths(columns, rows);
  // The width of the shown columns but the name, each with the two spaces before it.
  const auto others_width = [&] {
    std::size_t width = 0;
    for (std::size_t c = 1; c < columns.size(); ++c) width += shown[c] ? widths[c] + 2 : 0;
    return width;
  };
  const std::size_t wanted_name = std::min(std::max(longest_name, columns[0].name.size()), kReadableNameColumns);
  for (const auto column : {dtype_column, kind_column, rate_column}) {
    if (others_width() + wanted_name <= kConsoleColumns) break;
    shown[column] = false;
  }
  const std::size_t others = others_width();
  const std::size_t name_width = kConsoleColumns > others + 12 ? kConsoleColumns - others : 12;
  std::vector<TableColumn> shown_columns;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (shown[c]) shown_columns.push_back(columns[c]);
  }
  for (auto& row : rows) {
    row[name_column] = fitted(row[name_column], name_width);
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (shown[c]) cells.push_back(std::move(row[c]));
    }
    row = std::move(cells);
  }
  std::string dtypes;
  if (!shown[dtype_column]) {
    for (const auto& op : report.ops) {
      const std::string dtype(to_string(op.dtype));
      if (dtypes.find(dtype) == std::string::npos) dtypes += (dtypes.empty() ? "" : ", ") + dtype;
    }
  }
  const std::string title =
      fmt::format("{} on {}: {} ops{}, {} bytes, OI against {}; the binding ceiling (--wide: every column)",
                  report.workload_name, report.hardware_name, report.ops.size(), dtypes.empty() ? "" : " in " + dtypes,
                  report.bytes_basis, report.main_memory);
  out << wrap_words(title, kConsoleColumns, "  ") << "\n";
  print_table(shown_columns, rows, out);
}

}  // namespace

void write_console_table(const Report& report, std::ostream& out, const TableOptions& options) {
  if (options.wide) {
    write_wide_table(report, out);
  } else {
    write_compact_table(report, out);
  }
}

void write_summary(const Report& report, std::ostream& out) {
  out << fmt::format(
      "{} on {}: {} ops; per op: bound_by, time (simulated or the binding ceiling's), rate, efficiency\n",
      report.workload_name, report.hardware_name, report.ops.size());
  std::size_t name_width = 8;
  for (const auto& op : report.ops) name_width = std::max(name_width, std::min<std::size_t>(op.name.size(), 48));
  for (const auto& op : report.ops) {
    const auto& binding = op.roofline.ceilings[op.roofline.binding];
    const double seconds = op.sim_time_s ? *op.sim_time_s : binding.time_s;
    const double rate = op.achieved_flops_per_s ? *op.achieved_flops_per_s : binding.flops_per_s;
    std::string line = fmt::format("{:<{}}  {:<16} {:>10} us {:>10} TFLOP/s", fitted(op.name, 48), name_width,
                                   fitted(op.roofline.bound_by, 16), time_us_text(seconds), short_number(rate / 1e12));
    if (op.extra.contains("efficiency")) line += fmt::format(" {:>6}% of the ceiling", efficiency_text(op));
    out << line << "\n";
  }
}

std::vector<std::string> write_report_files(const Report& report, const DeviceRoof& device,
                                            const std::filesystem::path& dir) {
  std::vector<std::string> names = {"report.json", "ops.csv", "levels.csv"};
  write_output_file(dir / "report.json", [&](std::ostream& out) { write_report_json(report, out); });
  write_output_file(dir / "ops.csv", [&](std::ostream& out) { write_ops_csv(report, out); });
  write_output_file(dir / "levels.csv", [&](std::ostream& out) { write_levels_csv(report, out); });
  if (std::any_of(report.ops.begin(), report.ops.end(), is_step_row)) {
    write_output_file(dir / "steps.csv", [&](std::ostream& out) { write_steps_csv(report, out); });
    names.push_back("steps.csv");
  }
  write_output_file(dir / "roofline.svg", [&](std::ostream& out) { write_roofline_svg(report, device, out); });
  write_output_file(dir / "energy.svg", [&](std::ostream& out) { write_energy_svg(report, device, out); });
  names.insert(names.end(), {"roofline.svg", "energy.svg"});
  return names;
}

}  // namespace roofsim
