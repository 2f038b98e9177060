// `roofsim bench [engine|dram|net|idle|all]`: whole-run benchmarks that print figures (never timed tests).
#include <algorithm>
#include <memory>

#include "sim/cli/app.h"

namespace roofsim::cli {

void add_bench_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("bench", "Benchmarks of the simulator itself: wall time, events/s, RSS");
  auto target = std::make_shared<std::string>("engine");
  command->add_option("target", *target, "engine (default), dram, net, idle (runs that mostly wait) or all")
      ->check(CLI::IsMember({"engine", "dram", "net", "idle", "all"}));
  auto dram_model = std::make_shared<std::string>("both");
  command
      ->add_option("--dram", *dram_model,
                   "DRAM model of the engine benchmark's runs: both (each scenario with the simple, then the "
                   "detailed model), simple or detailed (the detailed one is slower)")
      ->check(CLI::IsMember({"both", "simple", "detailed"}))
      ->capture_default_str();
  command->callback([target, dram_model, &exit_code]() {
    if (*target == "engine") exit_code = run_engine_bench(*dram_model);
    if (*target == "dram") exit_code = run_dram_bench();
    if (*target == "net") exit_code = run_net_bench();
    if (*target == "idle") exit_code = run_idle_bench();
    if (*target == "all") {
      exit_code = std::max({run_engine_bench(*dram_model), run_dram_bench(), run_net_bench(), run_idle_bench()});
    }
  });
}

}  // namespace roofsim::cli
