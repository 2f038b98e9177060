// `roofsim dram`: not built yet (see the issues).
#include <iostream>

#include "sim/cli/app.h"

namespace roofsim::cli {

void add_dram_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("dram", "(not built yet)");
  command->allow_extras();
  command->callback([&exit_code]() {
    std::cerr << "roofsim: 'dram' is not built yet\n";
    exit_code = 1;
  });
}

}  // namespace roofsim::cli

namespace roofsim::cli {

int run_dram_bench() {
  std::cerr << "roofsim: the DRAM benchmark is not built yet\n";
  return 1;
}

}  // namespace roofsim::cli
