#pragma once
// The roofsim command line. Each command lives in its own file and registers itself on the app here.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/config/work_limits.h"
#include "sim/graph/workload.h"

namespace roofsim::cli {

// Runs the CLI; returns the process exit code: 0 success, 2 bad input (a busy or unusable output folder too), 1 an
// output that could not be written or an internal error, 130 / 143 when SIGINT / SIGTERM stopped the work.
int run_main(int argc, char* argv[]);

// Splits repeated `--set KEY=VALUE` options; keys starting with "workload." go to the workload, the rest to the
// hardware (or cluster) file. A malformed option is an InputError.
struct SplitOverrides {
  std::vector<Override> hardware;
  std::vector<Override> workload;  // with the "workload." prefix removed
};
[[nodiscard]] SplitOverrides split_overrides(const std::vector<std::string>& sets);

// A command's exit code once its work is done: 0, or 130 / 143 when SIGINT / SIGTERM stopped it, after saying on
// stderr how much of the work (`done` of `total` `items`) finished.
[[nodiscard]] int work_exit_code(std::size_t done, std::size_t total, const std::string& items);

// --allow-large, on every command that takes on work in proportion to its input (run, roofline, validate, sweep,
// collective), and the limits it chooses.
void add_allow_large_flag(CLI::App& command, bool& allow_large);
[[nodiscard]] WorkLimits work_limits(bool allow_large);

// Before a simulation: refuses one of more tiles than `limits.tiles` (exit 2 naming the limit and --allow-large), and
// says on stderr how long a long one will take and how much memory it needs (run_work_check.cpp). `ranks`: the devices
// whose compute the run simulates; `memoized`: repeated ops will be replayed (not --exact), which the estimate, op by
// op, does not foresee.
void check_run_work(const Workload& workload, const HardwareParams& hardware, std::uint64_t ranks,
                    const WorkLimits& limits, bool memoized);

// Before a workload file's run: the simulator gives every tensor of the graph an address range of its own for the
// whole run (no tensor is freed), so a graph whose tensors (those not kept on chip) take more than the device's
// dram.capacity is a run the device cannot hold. Refuses it with exit 2, naming the workload file, the tensors' bytes
// and the capacity key and value, unless the file marks itself a what-if (workload.oversubscribe, its reason) or
// `allow_oversubscribe` (--allow-oversubscribe): then a warning on stderr. `--model` runs check their own footprint
// (model_option.cpp). A cluster run's graph is one rank's.
void check_workload_fits(const Workload& workload, const HardwareParams& hardware, bool allow_oversubscribe);

// The one way a run that does not fit the device's memory stops or goes on: a warning on stderr naming what allowed it
// (the file's stated what-if reason, else --allow-oversubscribe), or exit 2 at `pos` with `message` and `remedy`.
void refuse_oversubscription(const SourcePos& pos, const std::string& message, const std::string& remedy,
                             const std::string& what_if_reason, bool allow_oversubscribe);

// --wide (every column of the tables, however wide; by default they fit 120 columns) and --summary (one line per op
// instead of the tables), on `run` and `roofline`.
void add_table_flags(CLI::App& command, bool& wide, bool& summary);

// Each command adds its subcommand; the callback runs the command and returns its exit code through `exit_code`.
void add_validate_command(CLI::App& app, int& exit_code);    // cmd_validate.cpp
void add_list_command(CLI::App& app, int& exit_code);        // cmd_list.cpp
void add_roofline_command(CLI::App& app, int& exit_code);    // cmd_roofline.cpp
void add_run_command(CLI::App& app, int& exit_code);         // cmd_run.cpp (also the default scenario)
void add_dram_command(CLI::App& app, int& exit_code);        // cmd_dram.cpp
void add_collective_command(CLI::App& app, int& exit_code);  // cmd_collective.cpp
void add_bench_command(CLI::App& app, int& exit_code);       // cmd_bench.cpp
void add_sweep_command(CLI::App& app, int& exit_code);       // cmd_sweep.cpp
void add_ert_command(CLI::App& app, int& exit_code);         // cmd_ert.cpp
void add_diff_command(CLI::App& app, int& exit_code);        // cmd_diff.cpp

// `roofsim` with no command: the default scenario (cmd_run.cpp).
int run_default_scenario();

// `roofsim bench [engine|dram|net]`: each area's benchmark lives beside its command; each returns an exit code.
int run_engine_bench(const std::string& dram_model = "both");  // cmd_run.cpp; simple, detailed or both
int run_dram_bench();                                          // cmd_dram.cpp
int run_net_bench();                                           // cmd_collective.cpp
int run_idle_bench();                                          // cmd_run.cpp; runs that mostly wait
// bench_scale.cpp: the scale scenarios, each beside its --exact run (limited to `exact_limit_s` of wall time) unless
// `with_exact` is false.
int run_scale_bench(bool with_exact, double exact_limit_s);

}  // namespace roofsim::cli
