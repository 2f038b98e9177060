#include "sim/cli/app.h"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/provenance.h"
#include "sim/core/input_error.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/systemc_setup.h"
#include "sim/core/version.h"

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

void add_allow_large_flag(CLI::App& command, bool& allow_large) {
  const WorkLimits limits;
  command.add_flag(
      "--allow-large", allow_large,
      fmt::format("Lift the limits on the work a command takes on (above {} ops, {} tiles, {} sweep points "
                  "or {} cluster devices it stops with exit 2 before starting)",
                  limits.ops, limits.tiles, limits.sweep_points, limits.devices));
}

void add_table_flags(CLI::App& command, bool& wide, bool& summary) {
  command.add_flag("--wide", wide, "Print every column of the tables (each level's bytes, all six ceilings, tilings)");
  command.add_flag("--summary", summary,
                   "One line per op (what binds it, time, rate, efficiency) instead of the tables");
}

WorkLimits work_limits(bool allow_large) {
  return allow_large ? WorkLimits::unlimited() : WorkLimits{};
}

int work_exit_code(std::size_t done, std::size_t total, const std::string& items) {
  if (interrupt_signal() == 0) return 0;
  std::cerr << "roofsim: interrupted by " << interrupt_signal_name() << ": " << done << " of " << total << " " << items
            << " finished\n";
  return interrupted_exit_code();
}

int run_main(int argc, char* argv[]) {
  prepare_systemc_process();
  record_command_line(argc, argv);
  install_interrupt_handlers();
  CLI::App app{"roofsim: roofline analysis and SystemC simulation of AI hardware, op by op"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("roofsim ") + roofsim_version(),
                       "Print the roofsim version (git describe of the source it was built from) and exit");
  int exit_code = 0;
  add_validate_command(app, exit_code);
  add_list_command(app, exit_code);
  add_roofline_command(app, exit_code);
  add_run_command(app, exit_code);
  add_dram_command(app, exit_code);
  add_collective_command(app, exit_code);
  add_bench_command(app, exit_code);
  add_sweep_command(app, exit_code);
  add_ert_command(app, exit_code);
  add_diff_command(app, exit_code);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) return run_default_scenario();
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  } catch (const InputError& error) {
    std::cerr << "roofsim: error: " << error.what() << "\n";
    return 2;
  } catch (const OutputError& error) {
    std::cerr << "roofsim: error: " << error.what() << "\n";
    return 1;
  } catch (const std::filesystem::filesystem_error& error) {
    // Outputs report their errors as OutputError, so what reaches here is a path given as input (a name too long, a
    // folder that cannot be searched): bad input, named by its path.
    std::cerr << "roofsim: error: " << error.path1().string() << ": " << error.code().message() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "roofsim: internal error: " << error.what() << "\n";
    return 1;
  }
  return exit_code;
}

}  // namespace roofsim::cli
