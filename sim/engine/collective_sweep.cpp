#include "sim/engine/collective_sweep.h"

#include <chrono>
#include <utility>

#include "models/net/algorithm_choice.h"
#include "models/net/reduction_model.h"
#include "models/net/topology.h"
#include "sim/config/model_params.h"
#include "sim/core/interrupt.h"

namespace roofsim {

CollectiveSweep run_collective_sweep(const ClusterParams& cluster, const CollectiveSweepParams& params) {
  CollectiveSweep sweep;
  sweep.op = params.op;
  sweep.chunk_bytes = params.chunk_bytes.value_or(cluster.collective.chunk_bytes);
  sweep.packet_bytes = params.packet_bytes.value_or(cluster.collective.packet_bytes);
  const net::Topology topology(cluster);
  net::NetworkOptions network;
  network.packet_bytes = sweep.packet_bytes;
  if (cluster.collective.reduce_cost == ReduceCost::device) {
    network.reduction = net::ReductionModel(reduction_params(cluster.device, cluster.collective.data_type));
  }
  sweep.gamma_s_per_byte = network.reduction.gamma_s_per_byte();

  const auto& fixed = params.algorithm;
  net::CollectiveRequest base;
  base.op = params.op;
  base.ranks = net::ranks_for(fixed ? *fixed : net::Algorithm::ring, topology);
  base.chunk_bytes = sweep.chunk_bytes;
  base.levels = topology.levels();
  if (topology.in_switch_reduction()) base.switch_node = topology.switch_node();
  if (fixed) {
    base.algorithm = *fixed;
    sweep.unsupported = net::unsupported_reason(base);
    if (!sweep.unsupported.empty()) return sweep;
  }
  sweep.ranks = base.ranks.size();
  sweep.bus_factor = net::bus_bandwidth_factor(params.op, sweep.ranks);

  std::vector<Bytes> sizes;
  for (double size = static_cast<double>(params.min_bytes); size <= static_cast<double>(params.max_bytes) * (1 + 1e-12);
       size *= params.factor) {
    sizes.push_back(static_cast<Bytes>(size));
  }
  sweep.planned_rows = sizes.size();
  for (const Bytes bytes : sizes) {
    if (interrupt_signal() != 0) {
      sweep.complete = false;
      break;
    }
    net::CollectiveRequest request = base;
    request.bytes = bytes;
    CollectiveSweepRow row;
    row.bytes = request.bytes;
    if (fixed) {
      row.run = net::run_collective(topology, request, network);
    } else {
      const auto choice = net::fastest_algorithm(topology, request, network);
      request.algorithm = choice.algorithm;
      request.ranks = net::ranks_for(choice.algorithm, topology);
      row.run = choice.run;
    }
    row.algorithm = std::string(net::to_string(request.algorithm));
    row.prediction = net::predict(request, topology, sweep.gamma_s_per_byte);
    sweep.rows.push_back(std::move(row));
  }
  return sweep;
}

TimedCollective time_ring_allreduce(const ClusterParams& cluster, Bytes bytes, Bytes chunk_bytes, Bytes packet_bytes,
                                    const HardwareParams* reduction_device) {
  net::NetworkOptions network;
  network.packet_bytes = packet_bytes;
  if (reduction_device != nullptr)
    network.reduction = net::ReductionModel(reduction_params(*reduction_device, DataType::fp32));
  const net::Topology topology(cluster);
  net::CollectiveRequest request;
  request.op = net::CollectiveOp::allreduce;
  request.algorithm = net::Algorithm::ring;
  request.bytes = bytes;
  request.ranks = topology.ring_order();
  request.chunk_bytes = chunk_bytes;
  TimedCollective timed;
  const auto start = std::chrono::steady_clock::now();
  timed.run = net::run_collective(topology, request, network);
  timed.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timed.bus_factor = net::bus_bandwidth_factor(net::CollectiveOp::allreduce, cluster.devices);
  return timed;
}

}  // namespace roofsim
