#pragma once
// What a report records of how it was made: the command line this process was started with, its --set overrides, and
// the SHA-256 of every input file (the hardware or cluster file, the device file a cluster names, the DRAM standard
// file, the workload), so that a result folder can be traced to exact inputs and re-run.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"
#include "sim/results/report_model.h"

namespace roofsim::cli {

// Kept once at start (run_main): "roofsim" and the arguments, each shell-quoted where the shell would split it.
void record_command_line(int argc, char* argv[]);
[[nodiscard]] const std::string& recorded_command_line();

// The provenance of a report of `workload` on `hardware`; `cluster_file` names the cluster file of a cluster run.
[[nodiscard]] Provenance make_provenance(const HardwareParams& hardware, const Workload& workload,
                                         const std::vector<std::string>& sets,
                                         const std::filesystem::path& cluster_file = {});

}  // namespace roofsim::cli
