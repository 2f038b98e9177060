// `roofsim collective`: not built yet (see the issues).
#include <iostream>

#include "sim/cli/app.h"

namespace roofsim::cli {

void add_collective_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("collective", "(not built yet)");
  command->allow_extras();
  command->callback([&exit_code]() {
    std::cerr << "roofsim: 'collective' is not built yet\n";
    exit_code = 1;
  });
}

}  // namespace roofsim::cli

namespace roofsim::cli {

int run_net_bench() {
  std::cerr << "roofsim: the network benchmark is not built yet\n";
  return 1;
}

}  // namespace roofsim::cli
