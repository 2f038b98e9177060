// `roofsim diff A B`: two result folders (of `run` or `roofline`) compared op by op: a console table, and diff.html
// in --out.
#include <iostream>
#include <memory>

#include "sim/cli/app.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/report/diff_writers.h"
#include "sim/results/result_diff.h"

namespace roofsim::cli {

namespace {

struct DiffOptions {
  std::string a;
  std::string b;
  std::string out;
};

int run_diff(const DiffOptions& options) {
  const auto diff = diff_results(read_result_figures(options.a), read_result_figures(options.b));
  write_diff_table(diff, std::cout);
  if (!options.out.empty()) {
    const OutputFolder folder(options.out);
    const std::filesystem::path out(options.out);
    write_output_file(out / "diff.html", [&](std::ostream& html) { write_diff_html(diff, html); });
    std::cout << "\nwrote " << (out / "diff.html").string() << "\n";
  }
  return 0;
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "diff", "Compare two result folders op by op (time, bytes per level, bound): a table, and diff.html with --out");
  auto options = std::make_shared<DiffOptions>();
  command->add_option("a", options->a, "Result folder A (holding report.json), the reference")->required();
  command->add_option("b", options->b, "Result folder B, compared with A")->required();
  command->add_option("--out", options->out, "Folder for diff.html");
  command->callback([options, &exit_code]() { exit_code = run_diff(*options); });
}

}  // namespace roofsim::cli
