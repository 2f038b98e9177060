// `roofsim sweep`: not built yet (see the issues).
#include <iostream>

#include "sim/cli/app.h"

namespace roofsim::cli {

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("sweep", "(not built yet)");
  command->allow_extras();
  command->callback([&exit_code]() {
    std::cerr << "roofsim: 'sweep' is not built yet\n";
    exit_code = 1;
  });
}

}  // namespace roofsim::cli
