// A command-line driver for Ramulator 2.1, which ships as a library with Python bindings only: it loads the YAML that
// `python3 -m ramulator export CONFIG.py -o CONFIG.yaml` writes, runs the frontend and the memory system to the end of
// the trace, as the bindings' Simulation.run() does, and prints the statistics (YAML) on standard output.
// scripts/compare-dram uses it; configs/dram/README.md says how to build it against a Ramulator 2 checkout.
#include <iostream>
#include <memory>

#include "ramulator/base/config.h"
#include "ramulator/base/factory.h"
#include "ramulator/frontend/i_frontend.h"
#include "ramulator/memory_system/i_memory_system.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ramulator2_driver CONFIG.yaml\n";
    return 2;
  }
  using namespace Ramulator;
  const ConfigNode config = Config::parse_config_file(argv[1]);
  std::unique_ptr<IFrontEnd> frontend(Factory::create_frontend(config));
  std::unique_ptr<IMemorySystem> memory(Factory::create_memory_system(config));
  frontend->connect_memory_system(memory.get());
  memory->connect_frontend(frontend.get());
  // The two clocks tick in the ratio of their clock_ratio settings.
  const int frontend_ratio = frontend->get_clock_ratio(), memory_ratio = memory->get_clock_ratio();
  for (int frontend_count = memory_ratio - 1, memory_count = frontend_ratio - 1;;) {
    if (++frontend_count >= memory_ratio) {
      frontend_count = 0;
      frontend->tick();
    }
    if (frontend->is_finished()) break;
    if (++memory_count >= frontend_ratio) {
      memory_count = 0;
      memory->tick();
    }
  }
  frontend->finalize();
  memory->finalize();
  frontend->update_stats_recursive();
  memory->update_stats_recursive();
  frontend->print_stats(std::cout);
  memory->print_stats(std::cout);
  return 0;
}
