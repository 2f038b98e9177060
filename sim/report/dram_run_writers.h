#pragma once
// The outputs of `roofsim dram`: a console summary and dram.json with bandwidth and % of pin peak, row-hit rate, read
// latency (avg/p50/p99/max), ACTs per bank, refresh time share and energy by command.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/dram_params.h"
#include "sim/engine/dram_run.h"

namespace roofsim {

// `workload` names the requests ("trace FILE", "stream 4 MiB").
void write_dram_summary(const DramRunResult& result, const DramParams& dram, const std::string& workload,
                        std::ostream& out);
[[nodiscard]] nlohmann::ordered_json dram_run_json(const DramRunResult& result, const DramParams& dram,
                                                   const std::string& workload);

}  // namespace roofsim
