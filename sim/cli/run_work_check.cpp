#include <iostream>
#include <set>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"
#include "sim/graph/work_estimate.h"

namespace roofsim::cli {

void check_run_work(const Workload& workload, const HardwareParams& hardware, std::uint64_t ranks,
                    const WorkLimits& limits, bool memoized) {
  const auto estimate = estimate_work(workload, hardware, ranks);
  check_work_limit(SourcePos{workload.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.tiles, limits.tiles, "tiles");
  // Each unit is a module with its own events and state: a million of them exhaust memory while elaborating.
  check_work_limit(SourcePos{hardware.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.units, limits.compute_units, "compute units");
  check_work_limit(SourcePos{workload.file}, "the run of workload '" + workload.name + "' on " + hardware.name,
                   estimate.compulsory_bytes, limits.dram_traffic_bytes, "bytes of compulsory DRAM traffic");
  if (!worth_announcing(estimate)) return;
  // Memoization replays an op whose signature ran before: a 96-layer GPT-3 forward estimated at 48 min takes under
  // 30 s. The estimate is then what --exact would take, an upper bound.
  if (memoized) {
    std::cerr << "roofsim: a long run if every op were simulated (--exact): " << estimate_text(estimate)
              << "; repeated ops are replayed, which usually takes far less\n";
  } else {
    std::cerr << "roofsim: a long run: " << estimate_text(estimate) << "\n";
  }
}

void check_workload_fits(const Workload& workload, const HardwareParams& hardware, bool allow_oversubscribe) {
  if (!hardware.dram || hardware.dram->capacity_bytes == 0) return;
  const Bytes capacity = hardware.dram->capacity_bytes;
  std::set<std::size_t> produced;
  for (const Op& op : workload.ops) produced.insert(op.outputs.begin(), op.outputs.end());
  // Tensors kept on chip (tensor.resident) take no DRAM; the others split into those the graph reads without making
  // (weights, inputs, a KV cache) and those its ops produce.
  Bytes read_only = 0, made = 0;
  for (std::size_t t = 0; t < workload.tensors.size(); ++t) {
    const Tensor& tensor = workload.tensors[t];
    if (tensor.resident) continue;
    (produced.count(t) > 0 ? made : read_only) += tensor.bytes;
  }
  const Bytes total = read_only + made;
  if (total <= capacity) return;
  const std::string message = fmt::format(
      "workload '{}' does not fit one {}: its tensors take {} bytes ({}: {} read by the graph without being made, "
      "such as weights and caches, {} made by its ops), every tensor at an address of its own for the whole run; {} "
      "sets dram.capacity = {} bytes ({})",
      workload.name, hardware.name, total, format_bytes(total), format_bytes(read_only), format_bytes(made),
      hardware.file, capacity, format_bytes(capacity));
  refuse_oversubscription(SourcePos{workload.file}, message,
                          "shard it over the devices of a cluster, run fewer layers or a smaller batch (--set "
                          "workload.params.NAME=N), mark the file a what-if (workload.oversubscribe = \"why\") or pass "
                          "--allow-oversubscribe",
                          workload.oversubscribe, allow_oversubscribe);
}

void refuse_oversubscription(const SourcePos& pos, const std::string& message, const std::string& remedy,
                             const std::string& what_if_reason, bool allow_oversubscribe) {
  if (!what_if_reason.empty()) {
    std::cerr << "warning: " << message
              << "; run as the what-if the file states (workload.oversubscribe): " << what_if_reason << "\n";
    return;
  }
  if (allow_oversubscribe) {
    std::cerr << "warning: " << message << " (--allow-oversubscribe)\n";
    return;
  }
  throw InputError(pos, message + "; expected at most the capacity: " + remedy);
}

}  // namespace roofsim::cli
