#pragma once
// Closed-form predictions of collective times in the alpha-beta-gamma model (Thakur, Rabenseifner and Gropp,
// "Optimization of collective communication operations in MPICH", IJHPCA 19(1), 2005; Patarasuk and Yuan 2009 for
// the ring allreduce; Sanders, Speck and Traeff 2009 for pipelined trees): alpha is the start-up cost of one message
// on the algorithm's worst path (latency plus per-message overhead), beta the time per byte of its bottleneck link,
// gamma the time per byte of a reduction. They are printed beside the simulated times and checked against them in
// tests; the simulation, not these formulas, is the answer (it adds contention, packet pipelining and overlap).
#include <string>

#include "models/net/collectives.h"
#include "models/net/network_core.h"
#include "models/net/topology.h"

namespace roofsim::net {

struct PathCost {
  Seconds latency_s = 0;        // sum of the link latencies of the route
  Seconds overhead_s = 0;       // sum of the per-message overheads of the route
  Seconds beta_s_per_byte = 0;  // 1 / the slowest link's bandwidth
  [[nodiscard]] Seconds alpha_s() const { return latency_s + overhead_s; }
};

// The cost of the route between two vertices, and the worst of a set of routes (each field's maximum).
[[nodiscard]] PathCost path_cost(const Topology& topology, NodeId from, NodeId to);

struct Prediction {
  Seconds time_s = 0;
  std::string formula;  // "2(p-1)a + 2(p-1)/p S b + (p-1)/p S g"
  PathCost cost;        // the alpha and beta used (of the slowest level for hierarchical)
};

// The prediction for the network as `options` describe it: the protocol's wire bytes, step latency and launch, the
// device's and the switch's reduction costs, the packet size. Ring and in-switch predictions follow the simulated
// mechanism (chunks pipelined through the steps, reductions overlapping transfers, channels sharing links): the
// larger of the pipeline's critical path and the busiest resource's work plus the drain after it. The tree allreduce
// is a list schedule of both trees' chunks: a message queues on its sender's port when it is ready and takes the rest
// of its route when that port sends it, so a switch's port to a rank serves messages in the order they reach it.
// Where an algorithm's own messages contend for a link in the other algorithms (a rail ring's channels on a node's
// NVLink ports, direct's incast at a NIC, hierarchical and CollNet slices on a node's ports, a rail tree broadcast's
// two edges on one port), the order a FIFO link serves them in is not replayed, and the prediction lies up to 2-22%
// off the simulation (tests/unit/engine/collective_prediction_sweep_test.cpp names each case and its measured ratio).
[[nodiscard]] Prediction predict(const CollectiveRequest& request, const Topology& topology,
                                 const NetworkOptions& options);
// The same on an ideal wire with a device reduction of `gamma_s_per_byte` and 64 KiB packets.
[[nodiscard]] Prediction predict(const CollectiveRequest& request, const Topology& topology, Seconds gamma_s_per_byte);

}  // namespace roofsim::net
