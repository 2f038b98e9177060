#include "sim/cli/app.h"

#include <iostream>

#include "sim/core/input_error.h"
#include "sim/core/systemc_setup.h"

namespace roofsim::cli {

SplitOverrides split_overrides(const std::vector<std::string>& sets) {
  SplitOverrides split;
  for (const auto& text : sets) {
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw InputError(SourcePos{"--set " + text}, "expected KEY=VALUE, such as --set power.cap=450W");
    }
    Override entry{text.substr(0, equals), text.substr(equals + 1)};
    static const std::string kWorkloadPrefix = "workload.";
    if (entry.key.rfind(kWorkloadPrefix, 0) == 0) {
      entry.key = entry.key.substr(kWorkloadPrefix.size());
      split.workload.push_back(std::move(entry));
    } else {
      split.hardware.push_back(std::move(entry));
    }
  }
  return split;
}

int run_main(int argc, char* argv[]) {
  prepare_systemc_process();
  CLI::App app{"roofsim: roofline analysis and SystemC simulation of AI hardware, op by op"};
  app.require_subcommand(0, 1);
  int exit_code = 0;
  add_validate_command(app, exit_code);
  add_list_command(app, exit_code);
  add_roofline_command(app, exit_code);
  add_run_command(app, exit_code);
  add_dram_command(app, exit_code);
  add_collective_command(app, exit_code);
  add_bench_command(app, exit_code);
  add_sweep_command(app, exit_code);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) return run_default_scenario();
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  } catch (const InputError& error) {
    std::cerr << "roofsim: error: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "roofsim: internal error: " << error.what() << "\n";
    return 1;
  }
  return exit_code;
}

}  // namespace roofsim::cli
