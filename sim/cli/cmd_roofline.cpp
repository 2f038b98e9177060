// `roofsim roofline`: the six analytic ceilings of every op of a workload on a device, from compulsory FLOPs and bytes
// (DESIGN.md section 5): a console table, and report.json, ops.csv and roofline.svg in the output folder.
#include <iostream>
#include <memory>
#include <optional>

#include "sim/cli/app.h"
#include "sim/cli/input_names.h"
#include "sim/cli/model_option.h"
#include "sim/cli/provenance.h"
#include "sim/config/data_paths.h"
#include "sim/config/hardware_params.h"
#include "sim/core/output_folder.h"
#include "sim/design/design_model.h"
#include "sim/graph/workload.h"
#include "sim/report/design_table.h"
#include "sim/report/html_report.h"
#include "sim/report/report_writers.h"
#include "sim/results/design_report.h"
#include "sim/results/model_report.h"
#include "sim/results/roofline_report.h"
#include "sim/roofline/roofline.h"

namespace roofsim::cli {

namespace {

struct RooflineOptions {
  std::string hardware;
  std::string workload;
  std::vector<std::string> sets;
  std::string out = "results";
  bool allow_large = false;
  ModelOptions model;
  TableOptions table;
  bool summary = false;
  bool quiet = false;  // the files only: no table, no design line
};

int run_roofline(const RooflineOptions& given) {
  RooflineOptions options = given;
  expand_model_template(options.workload, options.model, options.sets);
  const auto overrides = split_overrides(options.sets);
  auto hardware = load_hardware(find_input_file("--hw", options.hardware, {"configs"}, "device"), overrides.hardware);
  (void)apply_derived_tdp(hardware);
  require_workload_or_model(options.workload, options.model);
  std::optional<ModelWorkload> model;
  if (!options.model.model.empty()) {
    model = load_model_workload(options.model, overrides.workload, hardware, 0, work_limits(options.allow_large));
  }
  const auto workload = model
                            ? model->workload
                            : load_workload(find_input_file("--workload", options.workload, {"workloads"}, "workload"),
                                            overrides.workload, hardware, work_limits(options.allow_large));
  const OutputFolder folder(options.out);
  const auto device = make_device_roof(hardware);
  auto report = make_roofline_report(workload, hardware, device);
  report.provenance = make_provenance(hardware, workload, options.sets);
  if (model) report.extra["model"] = model_report_json(*model, hardware.dram ? hardware.dram->capacity_bytes : 0);
  add_design_report(report, hardware);
  if (options.summary && !options.quiet) {
    write_summary(report, std::cout);
  } else if (!options.quiet) {
    write_console_table(report, std::cout, options.table);
    write_design_line(report, std::cout);
  }
  const std::filesystem::path out(options.out);
  auto files = write_report_files(report, device, out);
  write_report_html_file(report, out);
  files.push_back("report.html");
  if (!options.quiet) std::cout << "\n";
  write_wrote_line(out, files, "", std::cout);
  return 0;
}

}  // namespace

void add_roofline_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("roofline",
                                     "Six analytic roofline ceilings per op (compulsory bytes): table, report.json, "
                                     "ops.csv, roofline.svg, energy.svg");
  auto options = std::make_shared<RooflineOptions>();
  command->add_option("--hw", options->hardware, "Hardware file, or a bundled device by name (H100-SXM5)")->required();
  auto* workload =
      command->add_option("--workload", options->workload, "Workload file, or a bundled workload by name (gemm)");
  add_model_options(*command, options->model, workload);
  command->add_option("--set", options->sets,
                      "Override KEY=VALUE (repeatable): a hardware key (power.cap=450W) or workload.<key> "
                      "(workload.params.batch=8)");
  command->add_option("--out", options->out, "Folder for report.json, ops.csv, roofline.svg and energy.svg")
      ->capture_default_str();
  add_table_flags(*command, options->table.wide, options->summary);
  command->add_flag("--quiet", options->quiet, "No table: write the files and name them");
  add_allow_large_flag(*command, options->allow_large);
  command->callback([options, &exit_code]() { exit_code = run_roofline(*options); });
}

}  // namespace roofsim::cli
