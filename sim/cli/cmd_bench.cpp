// `roofsim bench [engine|dram|net|idle|scale|all]`: whole-run benchmarks that print figures (never timed tests).
#include <algorithm>
#include <memory>

#include "sim/cli/app.h"

namespace roofsim::cli {

void add_bench_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("bench", "Benchmarks of the simulator itself: wall time, events/s, RSS");
  auto target = std::make_shared<std::string>("engine");
  command
      ->add_option("target", *target,
                   "engine (default), dram, net, idle (runs that mostly wait), scale (whole models and clusters beside "
                   "their targets and --exact; not in all) or all")
      ->check(CLI::IsMember({"engine", "dram", "net", "idle", "scale", "all"}));
  auto dram_model = std::make_shared<std::string>("both");
  command
      ->add_option("--dram", *dram_model,
                   "DRAM model of the engine benchmark's runs: both (each scenario with the simple, then the "
                   "detailed model), simple or detailed (the detailed one is slower)")
      ->check(CLI::IsMember({"both", "simple", "detailed"}))
      ->capture_default_str();
  auto no_exact = std::make_shared<bool>(false);
  command->add_flag("--no-exact", *no_exact, "scale: skip the --exact runs (the comparison) for a quick figure");
  auto exact_limit_s = std::make_shared<double>(600.0);
  command
      ->add_option("--exact-limit", *exact_limit_s,
                   "scale: wall seconds an --exact run may take before it is stopped and reported unfinished")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->callback([target, dram_model, no_exact, exact_limit_s, &exit_code]() {
    if (*target == "engine") exit_code = run_engine_bench(*dram_model);
    if (*target == "dram") exit_code = run_dram_bench();
    if (*target == "net") exit_code = run_net_bench();
    if (*target == "idle") exit_code = run_idle_bench();
    if (*target == "scale") exit_code = run_scale_bench(!*no_exact, *exact_limit_s);
    if (*target == "all") {
      exit_code = std::max({run_engine_bench(*dram_model), run_dram_bench(), run_net_bench(), run_idle_bench()});
    }
  });
}

}  // namespace roofsim::cli
