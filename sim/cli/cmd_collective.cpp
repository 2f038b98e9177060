// `roofsim collective`: an nccl-tests-style sweep of one collective over a cluster, simulated on the network model
// beside its alpha-beta(-gamma) prediction; and `roofsim bench net`.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "models/net/algorithm_choice.h"
#include "models/net/alpha_beta.h"
#include "models/net/collectives.h"
#include "models/net/network_core.h"
#include "models/net/topology.h"
#include "sim/cli/app.h"
#include "sim/config/cluster_params.h"
#include "sim/config/data_paths.h"
#include "sim/config/model_params.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"

namespace roofsim::cli {

namespace {

struct CollectiveOptions {
  std::string cluster;
  std::string op = "allreduce";
  std::string algorithm = "auto";
  std::string min_size = "8B";
  std::string max_size = "1GB";
  double factor = 2.0;
  std::string chunk;
  std::string packet;
  std::string out;
  std::vector<std::string> sets;
};

Bytes option_bytes(const std::string& option, const std::string& text) {
  const auto bytes = parse_bytes(text);
  if (!bytes || *bytes == 0) {
    throw InputError(SourcePos{option + " " + text}, option, text,
                     "a byte size greater than 0 such as \"8B\" or \"8GB\"");
  }
  return *bytes;
}

struct Row {
  Bytes bytes = 0;
  std::string algorithm;
  net::CollectiveRun run;
  net::Prediction prediction;
};

int run_collective_command(const CollectiveOptions& options) {
  const auto op = net::parse_collective_op(options.op);
  if (!op) {
    throw InputError(SourcePos{"--op " + options.op}, "--op", options.op,
                     "allreduce, allgather, reducescatter, alltoall or broadcast");
  }
  std::optional<net::Algorithm> fixed;
  if (options.algorithm != "auto") {
    fixed = net::parse_algorithm(options.algorithm);
    if (!fixed) {
      throw InputError(SourcePos{"--algo " + options.algorithm}, "--algo", options.algorithm,
                       "ring, tree, hd, direct, hierarchical, switch or auto");
    }
  }
  const Bytes min_bytes = option_bytes("--min", options.min_size);
  const Bytes max_bytes = option_bytes("--max", options.max_size);
  if (max_bytes < min_bytes)
    throw InputError(SourcePos{"--max " + options.max_size}, "--max", options.max_size, "at least --min");
  if (!(options.factor > 1.0)) {
    throw InputError(SourcePos{"--factor"}, "--factor", fmt::format("{}", options.factor), "a factor greater than 1");
  }

  const auto overrides = split_overrides(options.sets);
  const auto file = resolve_data_file(options.cluster, "configs/clusters");
  const ClusterParams cluster = load_cluster(file, overrides.hardware);
  const Bytes chunk_bytes =
      options.chunk.empty() ? cluster.collective.chunk_bytes : option_bytes("--chunk", options.chunk);
  const Bytes packet_bytes =
      options.packet.empty() ? cluster.collective.packet_bytes : option_bytes("--packet", options.packet);
  const net::Topology topology(cluster);
  net::NetworkOptions network;
  network.packet_bytes = packet_bytes;
  if (cluster.collective.reduce_cost == ReduceCost::device) {
    network.reduction = net::ReductionModel(reduction_params(cluster.device, cluster.collective.data_type));
  }
  const Seconds gamma = network.reduction.gamma_s_per_byte();
  const Bytes element = element_bytes(cluster.collective.data_type);

  net::CollectiveRequest base;
  base.op = *op;
  base.ranks = net::ranks_for(fixed ? *fixed : net::Algorithm::ring, topology);
  base.chunk_bytes = chunk_bytes;
  base.levels = topology.levels();
  if (topology.in_switch_reduction()) base.switch_node = topology.switch_node();
  if (fixed) {
    base.algorithm = *fixed;
    const auto reason = net::unsupported_reason(base);
    if (!reason.empty())
      throw InputError(SourcePos{"--algo " + options.algorithm}, "--algo", options.algorithm, reason);
  }

  std::vector<Row> rows;
  for (double size = static_cast<double>(min_bytes); size <= static_cast<double>(max_bytes) * (1 + 1e-12);
       size *= options.factor) {
    net::CollectiveRequest request = base;
    request.bytes = static_cast<Bytes>(size);
    Row row;
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
    row.prediction = net::predict(request, topology, gamma);
    rows.push_back(std::move(row));
  }

  const std::size_t p = base.ranks.size();
  const double bus_factor = net::bus_bandwidth_factor(*op, p);
  std::cout << fmt::format("# roofsim collective: {} on {} ({} ranks, {} topology)\n", options.op, cluster.name, p,
                           to_string(cluster.topology));
  std::cout << fmt::format(
      "# algorithm {}, type {}, chunk {}, packet {}, reduction gamma {:.4g} ps/B ({})\n", options.algorithm,
      to_string(cluster.collective.data_type), format_bytes(chunk_bytes), format_bytes(packet_bytes), gamma * 1e12,
      cluster.collective.reduce_cost == ReduceCost::device ? "device vector engine and memory" : "free");
  std::cout << "# busbw = algbw x "
            << (op == net::CollectiveOp::broadcast   ? "1"
                : op == net::CollectiveOp::allreduce ? "2(n-1)/n"
                                                     : "(n-1)/n")
            << fmt::format(
                   " = {:.4f} (nccl-tests); pred: alpha-beta-gamma prediction (Thakur, Rabenseifner, Gropp 2005)\n",
                   bus_factor);
  std::cout
      << "# sim/pred < 1 where chunks pipeline what the formula counts in full (latencies, reductions); > 1 where "
         "links are shared or packets store and forward\n";
  std::cout << fmt::format("{:>14} {:>12} {:>6} {:>12} {:>12} {:>11} {:>11} {:>12} {:>11} {:>9}\n", "size", "count",
                           "type", "algo", "time_us", "algbw_GB/s", "busbw_GB/s", "pred_us", "pred_busbw", "sim/pred");
  std::map<std::string, net::Prediction> formulas;
  for (const auto& row : rows) {
    const double time_s = row.run.time_s;
    const double algbw = static_cast<double>(row.bytes) / time_s / 1e9;
    const double pred_algbw = static_cast<double>(row.bytes) / row.prediction.time_s / 1e9;
    std::cout << fmt::format("{:>14} {:>12} {:>6} {:>12} {:>12.2f} {:>11.2f} {:>11.2f} {:>12.2f} {:>11.2f} {:>9.3f}\n",
                             row.bytes, row.bytes / element, to_string(cluster.collective.data_type), row.algorithm,
                             time_s * 1e6, algbw, algbw * bus_factor, row.prediction.time_s * 1e6,
                             pred_algbw * bus_factor, time_s / row.prediction.time_s);
    formulas.emplace(row.algorithm, row.prediction);
  }
  for (const auto& [name, prediction] : formulas) {
    std::cout << fmt::format("# {}: {}; a = {:.3f} us (latency {:.3f} + overhead {:.3f}), 1/b = {:.2f} GB/s\n", name,
                             prediction.formula, prediction.cost.alpha_s() * 1e6, prediction.cost.latency_s * 1e6,
                             prediction.cost.overhead_s * 1e6,
                             prediction.cost.beta_s_per_byte > 0 ? 1e-9 / prediction.cost.beta_s_per_byte : 0.0);
  }

  if (!options.out.empty()) {
    std::filesystem::create_directories(options.out);
    const auto path = std::filesystem::path(options.out) / "collective.csv";
    std::ofstream csv(path);
    csv << "op,ranks,size_bytes,count,type,algorithm,time_us,algbw_GB_per_s,busbw_GB_per_s,pred_time_us,"
           "pred_busbw_GB_per_s,formula,events\n";
    for (const auto& row : rows) {
      const double algbw = static_cast<double>(row.bytes) / row.run.time_s / 1e9;
      const double pred_algbw = static_cast<double>(row.bytes) / row.prediction.time_s / 1e9;
      csv << fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},\"{}\",{}\n", options.op, p, row.bytes,
                         row.bytes / element, to_string(cluster.collective.data_type), row.algorithm,
                         row.run.time_s * 1e6, algbw, algbw * bus_factor, row.prediction.time_s * 1e6,
                         pred_algbw * bus_factor, row.prediction.formula, row.run.events);
    }
    std::cout << "# wrote " << path.string() << "\n";
  }
  return 0;
}

}  // namespace

void add_collective_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "collective", "Sweep a collective over a cluster (nccl-tests columns) beside its alpha-beta-gamma prediction");
  auto options = std::make_shared<CollectiveOptions>();
  command->add_option("--hw", options->cluster, "Cluster file, by path or bundled name (8xH100-NVSwitch)")->required();
  command->add_option("--op", options->op, "allreduce, allgather, reducescatter, alltoall or broadcast")
      ->capture_default_str();
  command
      ->add_option("--algo", options->algorithm,
                   "ring, tree, hd, direct, hierarchical, switch, or auto (the fastest in simulation)")
      ->capture_default_str();
  command->add_option("--min", options->min_size, "Smallest size (nccl-tests -b)")->capture_default_str();
  command->add_option("--max", options->max_size, "Largest size (nccl-tests -e)")->capture_default_str();
  command->add_option("--factor", options->factor, "Size multiplier between rows (nccl-tests -f)")
      ->capture_default_str();
  command->add_option("--chunk", options->chunk, "Pipelining chunk (default: the cluster's collective.chunk_size)");
  command->add_option("--packet", options->packet, "Packet size (default: the cluster's collective.packet_size)");
  command->add_option("--out", options->out, "Folder for collective.csv");
  command->add_option("--set", options->sets, "KEY=VALUE override of a cluster key (repeatable)");
  command->callback([options, &exit_code]() { exit_code = run_collective_command(*options); });
}

int run_net_bench() {
  // Ring allreduce of 1 GB over H100-class links on a switch: the event count grows with ranks x steps x chunks.
  ClusterParams cluster;
  cluster.name = "bench";
  cluster.topology = TopologyKind::switch_star;
  cluster.link = LinkParams{450e9, 0.5e-6, 0.0};
  net::NetworkOptions network;
  network.packet_bytes = 64 * 1024;
  const auto device_file = resolve_data_file("H100-SXM5", "configs");
  if (std::filesystem::exists(device_file)) {
    network.reduction = net::ReductionModel(reduction_params(load_hardware(device_file), DataType::fp32));
  }
  const Bytes bytes = 1000000000;
  std::cout << fmt::format("{:>8} {:>12} {:>12} {:>12} {:>12} {:>14} {:>12}\n", "ranks", "messages", "events", "wall_s",
                           "events/s", "sim_time_us", "busbw_GB/s");
  for (const std::uint64_t ranks : {8, 64, 1024}) {
    cluster.devices = ranks;
    const net::Topology topology(cluster);
    net::CollectiveRequest request;
    request.op = net::CollectiveOp::allreduce;
    request.algorithm = net::Algorithm::ring;
    request.bytes = bytes;
    request.ranks = topology.ring_order();
    request.chunk_bytes = 1024 * 1024;
    const auto start = std::chrono::steady_clock::now();
    const auto run = net::run_collective(topology, request, network);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double busbw =
        static_cast<double>(bytes) / run.time_s * net::bus_bandwidth_factor(net::CollectiveOp::allreduce, ranks) / 1e9;
    std::cout << fmt::format("{:>8} {:>12} {:>12} {:>12.3f} {:>12.3g} {:>14.1f} {:>12.1f}\n", ranks, run.transfers,
                             run.events, wall_s, static_cast<double>(run.events) / wall_s, run.time_s * 1e6, busbw);
  }
  return 0;
}

}  // namespace roofsim::cli
