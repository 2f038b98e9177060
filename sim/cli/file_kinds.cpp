#include "sim/cli/file_kinds.h"

#include "sim/config/cluster_params.h"
#include "sim/config/dram_params.h"
#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"
#include "sim/sweep/sweep_spec.h"

namespace roofsim::cli {

const std::vector<FileKind>& file_kinds() {
  static const std::vector<FileKind> kinds = {
      {"device", "hardware", "configs", &hardware_registry,
       [](const std::filesystem::path& file, const WorkLimits&) { (void)load_hardware(file); }},
      {"standard", "DRAM standard", "configs/dram", &dram_standard_registry,
       [](const std::filesystem::path& file, const WorkLimits&) { (void)load_dram_standard(file); }},
      {"workload", "workload", "workloads", &workload_registry,
       [](const std::filesystem::path& file, const WorkLimits& limits) {
         (void)build_workload(file, {}, kTensorAlignmentBytes, limits);
       }},
      {"cluster", "cluster", "configs/clusters", &cluster_registry,
       [](const std::filesystem::path& file, const WorkLimits& limits) { (void)load_cluster(file, {}, limits); }},
      {"sweep", "sweep", "sweeps", &sweep_registry,
       [](const std::filesystem::path& file, const WorkLimits& limits) { check_sweep_keys(load_sweep(file, limits)); }},
  };
  return kinds;
}

}  // namespace roofsim::cli
