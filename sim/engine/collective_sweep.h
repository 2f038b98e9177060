#pragma once
// `roofsim collective`: an nccl-tests-style sweep of one collective over a cluster's network, each size played alone
// on an idle network (models/net) beside its alpha-beta-gamma prediction; and the ring allreduce `roofsim bench net`
// times. Plain C++: the network core runs without the SystemC kernel.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/net/alpha_beta.h"
#include "models/net/collectives.h"
#include "models/net/network_core.h"
#include "sim/config/cluster_params.h"
#include "sim/config/hardware_params.h"
#include "sim/core/units.h"

namespace roofsim {

struct CollectiveSweepParams {
  net::CollectiveOp op = net::CollectiveOp::allreduce;
  std::optional<net::Algorithm> algorithm;  // none: NCCL-like tuning at each size (net::tuned_choice)
  std::optional<net::Protocol> protocol;    // none: the cluster's collective.protocol (auto: tuned at each size)
  std::optional<std::size_t> channels;      // none: the cluster's collective.channels (0: the topology's default)
  Bytes min_bytes = 8;
  Bytes max_bytes = 1000000000;
  double factor = 2.0;                // size multiplier between rows
  std::optional<Bytes> chunk_bytes;   // none: the cluster's collective.chunk_size
  std::optional<Bytes> packet_bytes;  // none: the cluster's collective.packet_size
  bool progress = false;              // progress lines on stderr once the sweep takes over 2 s, a size being an op
};

struct CollectiveSweepRow {
  Bytes bytes = 0;
  std::string algorithm;  // the fixed one, or the tuned one at this size
  std::string protocol;   // Simple, LL or LL128
  std::size_t channels = 1;
  net::CollectiveRun run;
  net::Prediction prediction;
};

struct CollectiveSweep {
  net::CollectiveOp op = net::CollectiveOp::allreduce;
  std::string unsupported;  // why the fixed algorithm cannot run the op on this cluster ("" when it can); no rows then
  std::size_t ranks = 0;
  double bus_factor = 0;         // busbw = algbw x bus_factor (nccl-tests)
  Seconds gamma_s_per_byte = 0;  // the reduction's cost (0 when the cluster's reduce_cost is free)
  Bytes chunk_bytes = 0;
  Bytes packet_bytes = 0;
  std::size_t channels = 1;              // ring channels (the other algorithms run one)
  std::string protocol_name;             // the fixed protocol, or "auto"
  std::vector<CollectiveSweepRow> rows;  // min_bytes, then x factor up to max_bytes
  // False when a SIGINT or SIGTERM inside a DeferInterrupts scope (sim/core/interrupt.h) stopped the sweep between
  // two sizes: `rows` holds the sizes done.
  bool complete = true;
  std::size_t planned_rows = 0;  // the sizes from min_bytes to max_bytes
};

[[nodiscard]] CollectiveSweep run_collective_sweep(const ClusterParams& cluster, const CollectiveSweepParams& params);

struct TimedCollective {
  net::CollectiveRun run;
  double wall_s = 0;      // the simulation's wall time
  double bus_factor = 0;  // busbw = algbw x bus_factor
};

// A ring allreduce of `bytes` over the cluster's topology in chunks of `chunk_bytes` and packets of `packet_bytes`,
// its reductions at the cost of `reduction_device`'s vector engine and memory for fp32 (free when null).
[[nodiscard]] TimedCollective time_ring_allreduce(const ClusterParams& cluster, Bytes bytes, Bytes chunk_bytes,
                                                  Bytes packet_bytes, const HardwareParams* reduction_device);

}  // namespace roofsim
