#pragma once
// How much work a command takes on before it starts. A typo in a count (a million layers, a range stepping by 1e-9, a
// cluster of 2^62 devices) would otherwise run for hours or exhaust memory before anything is reported; past these
// limits a command stops at once with exit 2, naming the limit and --allow-large, which lifts them.
#include <cstdint>
#include <limits>
#include <string>

#include "sim/core/input_error.h"

namespace roofsim {

// Far above every bundled scenario and study (the largest bundled workload has 160 ops and runs 24,000 tiles; the
// largest bundled study has a few dozen points) and the largest real machines, and about where a command would take
// hours or gigabytes: an op of the graph costs about 30 KiB and 0.2 ms to build, a tile from a few to hundreds of
// microseconds to simulate (README, "Limits").
struct WorkLimits {
  std::uint64_t ops = 100'000;            // ops of the expanded workload graph
  std::uint64_t tiles = 100'000'000;      // tiles a run simulates, over all its ops and simulated ranks
  std::uint64_t sweep_points = 100'000;   // points of a sweep: the product of its axes' lengths (grid)
  std::uint64_t devices = 65'536;         // devices of a cluster
  std::uint64_t compute_units = 65'536;   // units a run simulates, over its ranks (8x8xH100 with --full: 8,448)
  std::uint64_t message_chunks = 65'536;  // chunks of a collective's largest message (1 GB in 1 MiB chunks: 954)
  // The ops' compulsory DRAM traffic over a run's simulated ranks: 16 TiB is 2.7e11 requests of 64 B, days of
  // simulation, and about 40 times a GPT-3 175B training step's traffic on one rank.
  std::uint64_t dram_traffic_bytes = std::uint64_t{1} << 44;

  // What --allow-large asks for: no limit.
  [[nodiscard]] static constexpr WorkLimits unlimited() {
    constexpr auto kNone = std::numeric_limits<std::uint64_t>::max();
    return WorkLimits{kNone, kNone, kNone, kNone, kNone, kNone, kNone};
  }
};

// Throws InputError at `pos` when `count` is above `limit`: "<what> has <count> <unit>, above the limit of <limit>
// <unit>; pass --allow-large to <lift>".
void check_work_limit(const SourcePos& pos, const std::string& what, std::uint64_t count, std::uint64_t limit,
                      const std::string& unit);

// a * b, or the largest std::uint64_t when the product does not fit: for counts that are compared with a limit.
[[nodiscard]] std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b);
[[nodiscard]] std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b);

}  // namespace roofsim
