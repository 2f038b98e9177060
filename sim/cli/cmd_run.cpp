// `roofsim run`: not built yet (see the issues).
#include <iostream>

#include "sim/cli/app.h"

namespace roofsim::cli {

void add_run_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("run", "(not built yet)");
  command->allow_extras();
  command->callback([&exit_code]() {
    std::cerr << "roofsim: 'run' is not built yet\n";
    exit_code = 1;
  });
}

}  // namespace roofsim::cli

namespace roofsim::cli {

int run_default_scenario() {
  std::cerr << "roofsim: the default scenario is not built yet; see `roofsim --help`\n";
  return 1;
}

int run_engine_bench() {
  std::cerr << "roofsim: the engine benchmark is not built yet\n";
  return 1;
}

}  // namespace roofsim::cli
