#include "sim/engine/collective_sweep.h"

#include <chrono>
#include <iostream>
#include <utility>

#include "models/net/algorithm_choice.h"
#include "models/net/reduction_model.h"
#include "models/net/topology.h"
#include "sim/config/model_params.h"
#include "sim/core/interrupt.h"
#include "sim/engine/progress.h"

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
  if (cluster.switch_reduction_bytes_per_s > 0) {
    network.switch_reduction = net::ReductionModel::per_byte(1.0 / cluster.switch_reduction_bytes_per_s);
  }
  // The fabric switches are the only switches that reduce on a two_level cluster (its node switches run no NVLS).
  if (cluster.fabric_reduction_bytes_per_s > 0) {
    network.switch_reduction = net::ReductionModel::per_byte(1.0 / cluster.fabric_reduction_bytes_per_s);
  }
  sweep.gamma_s_per_byte = network.reduction.gamma_s_per_byte();
  std::optional<net::Protocol> protocol = params.protocol;
  if (!protocol && cluster.collective.protocol != "auto") protocol = net::parse_protocol(cluster.collective.protocol);
  sweep.protocol_name = protocol ? std::string(net::to_string(*protocol)) : "auto";
  const std::size_t configured_channels = params.channels.value_or(cluster.collective.channels);
  sweep.channels = configured_channels > 0 ? configured_channels : net::default_channels(topology);

  const auto& fixed = params.algorithm;
  net::CollectiveRequest base;
  base.op = params.op;
  base.ranks = net::ranks_for(fixed ? *fixed : net::Algorithm::ring, topology);
  base.chunk_bytes = sweep.chunk_bytes;
  base.levels = topology.levels();
  base.channels = net::channel_orders(topology, sweep.channels);
  if (topology.in_switch_reduction()) base.switch_node = topology.switch_node();
  if (cluster.fabric_reduction_bytes_per_s > 0) base.aggregation_switches = net::aggregation_switches(topology);
  if (fixed) {
    base.algorithm = *fixed;
    sweep.unsupported = net::unsupported_reason(base);
    if (sweep.unsupported.empty() && protocol && !net::protocol_supported(*protocol, *fixed)) {
      sweep.unsupported = std::string(net::to_string(*fixed)) + " runs the Simple protocol only";
    }
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
  const auto wall_start = std::chrono::steady_clock::now();
  // Each size is one collective op. Its simulation's cost grows with its bytes, so the estimate weighs the sizes
  // by their bytes (in the place of the FLOPs a workload's ops have).
  Bytes total_bytes = 0;
  for (const Bytes bytes : sizes) total_bytes += bytes;
  ProgressReport progress(sizes.size(), static_cast<Flops>(total_bytes), params.progress ? &std::cerr : nullptr);
  Seconds simulated_s = 0;
  Bytes done_bytes = 0;
  for (const Bytes bytes : sizes) {
    progress.report(sweep.rows.size(), static_cast<Flops>(done_bytes), simulated_s,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
    if (interrupt_signal() != 0) {
      sweep.complete = false;
      break;
    }
    net::CollectiveRequest request = base;
    request.bytes = bytes;
    const auto choice = net::tuned_choice(topology, request, network, protocol, fixed);
    request.algorithm = choice.algorithm;
    if (!fixed) request.ranks = net::ranks_for(choice.algorithm, topology);
    if (choice.algorithm != net::Algorithm::ring) request.channels.clear();
    net::NetworkOptions options = network;
    options.protocol = net::protocol_cost(choice.protocol, choice.algorithm);
    request.send_window_bytes = options.protocol.buffer_payload_bytes();
    request.chunk_bytes = options.protocol.chunk_bytes(sweep.chunk_bytes);
    CollectiveSweepRow row;
    row.bytes = request.bytes;
    row.algorithm = std::string(net::to_string(request.algorithm));
    row.protocol = std::string(net::to_string(choice.protocol));
    row.channels = request.channel_count();
    row.run = net::run_collective(topology, request, options);
    row.prediction = net::predict(request, topology, options);
    simulated_s += row.run.time_s;
    done_bytes += bytes;
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
