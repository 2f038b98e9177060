#include "sim/graph/work_estimate.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/quantity.h"
#include "sim/config/work_limits.h"
#include "sim/graph/lowering.h"

namespace roofsim {

namespace {

// Fitted to `roofsim run` of the bundled workloads on H100-SXM5 (detailed DRAM, one core of a shared build machine):
// a memory request costs about a microsecond of wall time, a byte of DRAM traffic about 1.5 ns (the controller's
// work per burst), a compute unit's module about 13 KiB and an op of the graph about 30 KiB. Rough by design: within
// a factor of a few on those runs, enough to tell a minute from an hour.
constexpr double kSecondsPerRequest = 1.0e-6;
constexpr double kSecondsPerDramByte = 1.5e-9;
constexpr double kBaseBytes = 32.0 * (1 << 20);
constexpr double kBytesPerUnit = 13.0 * 1024;
constexpr double kBytesPerOp = 30.0 * 1024;
constexpr double kAnnounceAboveSeconds = 30;

// Memory requests of one tile: its first step's reads times its steps, and its last step's writes.
std::uint64_t requests_per_tile(const OpLowering& lowering) {
  const std::uint32_t steps = lowering.steps(0);
  if (steps == 0) return 0;
  TileStep step;
  lowering.step(0, 0, step);
  std::uint64_t requests = saturating_mul(step.reads.size(), steps);
  if (steps > 1) lowering.step(0, steps - 1, step);
  return saturating_add(requests, step.writes.size());
}

}  // namespace

WorkEstimate estimate_work(const Workload& workload, const HardwareParams& hardware, std::uint64_t ranks) {
  WorkEstimate estimate;
  estimate.ops = workload.ops.size();
  estimate.units = saturating_mul(hardware.compute.units, ranks);
  for (const auto& op : workload.ops) {
    const auto lowering = lower_op(op, workload.tensors, hardware);
    estimate.compulsory_bytes = saturating_add(estimate.compulsory_bytes, op.compulsory_bytes());
    if (lowering == nullptr) continue;
    estimate.tiles = saturating_add(estimate.tiles, lowering->tiles());
    estimate.requests =
        saturating_add(estimate.requests, saturating_mul(lowering->tiles(), requests_per_tile(*lowering)));
  }
  estimate.tiles = saturating_mul(estimate.tiles, ranks);
  estimate.requests = saturating_mul(estimate.requests, ranks);
  estimate.compulsory_bytes = saturating_mul(estimate.compulsory_bytes, ranks);
  estimate.wall_s = static_cast<double>(estimate.requests) * kSecondsPerRequest +
                    static_cast<double>(estimate.compulsory_bytes) * kSecondsPerDramByte;
  estimate.memory_bytes = kBaseBytes + static_cast<double>(estimate.units) * kBytesPerUnit +
                          static_cast<double>(estimate.ops) * static_cast<double>(ranks) * kBytesPerOp;
  return estimate;
}

bool worth_announcing(const WorkEstimate& estimate) {
  return estimate.wall_s > kAnnounceAboveSeconds;
}

std::string estimate_text(const WorkEstimate& estimate) {
  const double seconds = estimate.wall_s;
  const std::string time = seconds < 120    ? fmt::format("{:.0f} s", seconds)
                           : seconds < 7200 ? fmt::format("{:.0f} min", seconds / 60)
                                            : fmt::format("{:.1f} h", seconds / 3600);
  return fmt::format(
      "about {} and {} to simulate {} tiles: {:.3g} memory requests and {} of DRAM traffic (a rough model from the "
      "tile count: {:.0f} us per request and {:.1f} ns per byte of DRAM traffic, measured on one core)",
      time, format_bytes(static_cast<Bytes>(estimate.memory_bytes)), estimate.tiles,
      static_cast<double>(estimate.requests), format_bytes(estimate.compulsory_bytes), kSecondsPerRequest * 1e6,
      kSecondsPerDramByte * 1e9);
}

}  // namespace roofsim
