// `roofsim collective`: an nccl-tests-style sweep of one collective over a cluster, simulated on the network model
// beside its alpha-beta(-gamma) prediction; and `roofsim bench net`.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/cli/app.h"
#include "sim/cli/input_names.h"
#include "sim/config/cluster_params.h"
#include "sim/config/data_paths.h"
#include "sim/config/quantity.h"
#include "sim/core/input_error.h"
#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"
#include "sim/core/output_folder.h"
#include "sim/engine/collective_sweep.h"
#include "sim/report/collective_writers.h"

namespace roofsim::cli {

namespace {

struct CollectiveOptions {
  std::string cluster;
  std::string op = "allreduce";
  std::string algorithm = "auto";
  std::string protocol;
  std::optional<std::size_t> channels;
  std::string min_size = "8B";
  std::string max_size = "1GB";
  double factor = 2.0;
  std::string chunk;
  std::string packet;
  std::string out;
  std::vector<std::string> sets;
  bool allow_large = false;
  bool quiet = false;  // no progress lines; with --out, no table (collective.csv holds it)
};

Bytes option_bytes(const std::string& option, const std::string& text) {
  const auto bytes = parse_bytes(text);
  if (!bytes || *bytes == 0) {
    throw InputError(SourcePos{option + " " + text}, option, text,
                     "a byte size greater than 0 such as \"8B\" or \"8GB\"");
  }
  return *bytes;
}

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
                       "ring, tree, hd, direct, hierarchical, switch, collnet or auto");
    }
  }
  std::optional<net::Protocol> protocol;
  if (!options.protocol.empty() && options.protocol != "auto") {
    protocol = net::parse_protocol(options.protocol);
    if (!protocol) {
      throw InputError(SourcePos{"--proto " + options.protocol}, "--proto", options.protocol,
                       "Simple, LL, LL128 or auto");
    }
  }
  if (options.channels && (*options.channels < 1 || *options.channels > 64)) {
    throw InputError(SourcePos{"--channels"}, "--channels", std::to_string(*options.channels), "1 to 64 channels");
  }
  const Bytes min_bytes = collective_size_bytes("--min", options.min_size);
  const Bytes max_bytes = collective_size_bytes("--max", options.max_size);
  if (max_bytes < min_bytes)
    throw InputError(SourcePos{"--max " + options.max_size}, "--max", options.max_size, "at least --min");
  if (!(options.factor > 1.0)) {
    throw InputError(SourcePos{"--factor"}, "--factor", fmt::format("{}", options.factor), "a factor greater than 1");
  }

  auto sets = options.sets;
  // `--proto auto` overrides a cluster file that fixes its protocol.
  if (options.protocol == "auto") sets.push_back("collective.protocol=auto");
  const auto overrides = split_overrides(sets);
  const auto file = find_input_file("--hw", options.cluster, {"configs/clusters"}, "cluster");
  const ClusterParams cluster = load_cluster(file, overrides.hardware, work_limits(options.allow_large));
  CollectiveSweepParams params;
  params.op = *op;
  params.algorithm = fixed;
  params.protocol = protocol;
  params.channels = options.channels;
  params.min_bytes = min_bytes;
  params.max_bytes = max_bytes;
  params.factor = options.factor;
  params.progress = !options.quiet;
  if (!options.chunk.empty()) params.chunk_bytes = option_bytes("--chunk", options.chunk);
  if (!options.packet.empty()) params.packet_bytes = option_bytes("--packet", options.packet);
  // A schedule holds every chunk of every step of every rank: a 1-byte chunk of a 4 MiB message exhausts memory.
  const Bytes chunk_bytes = params.chunk_bytes.value_or(cluster.collective.chunk_bytes);
  check_work_limit(options.chunk.empty() ? SourcePos{cluster.file} : SourcePos{"--chunk " + options.chunk},
                   "the largest message (" + format_bytes(max_bytes) + ") in chunks of " + format_bytes(chunk_bytes),
                   max_bytes / chunk_bytes + (max_bytes % chunk_bytes != 0 ? 1 : 0),
                   work_limits(options.allow_large).message_chunks, "chunks");
  std::optional<OutputFolder> folder;
  if (!options.out.empty()) folder.emplace(options.out);
  const DeferInterrupts defer;
  const auto sweep = run_collective_sweep(cluster, params);
  if (!sweep.unsupported.empty()) {
    throw InputError(SourcePos{"--algo " + options.algorithm}, "--algo", options.algorithm, sweep.unsupported);
  }
  if (!options.quiet || !folder) write_collective_table(sweep, cluster, options.op, options.algorithm, std::cout);

  if (folder) {
    const auto path = folder->path() / "collective.csv";
    write_output_file(path, [&](std::ostream& csv) { write_collective_csv(sweep, cluster, options.op, csv); });
    std::cout << "# wrote " << path.string() << (sweep.complete ? "" : " (the sizes done before the interruption)")
              << "\n";
  }
  return work_exit_code(sweep.rows.size(), sweep.planned_rows, "sizes");
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
                   "ring, tree, hd, direct, hierarchical, switch, collnet, or auto (ring, tree, switch or collnet by "
                   "the least predicted "
                   "time, as NCCL's tuner)")
      ->capture_default_str();
  command->add_option("--proto", options->protocol,
                      "Simple, LL, LL128, or auto (default: the cluster's collective.protocol)");
  command->add_option("--channels", options->channels,
                      "Ring channels (default: the cluster's collective.channels; one ring per NIC on two_level)");
  command
      ->add_option("-b,--min", options->min_size,
                   "Smallest size, as nccl-tests -b: a bare K, M, G is binary (64K = 65536 B), KB/MB/GB decimal")
      ->capture_default_str();
  command->add_option("-e,--max", options->max_size, "Largest size, as nccl-tests -e (8G = 8 GiB, 8GB = 8e9 B)")
      ->capture_default_str();
  command->add_option("-f,--factor", options->factor, "Size multiplier between rows (nccl-tests -f)")
      ->capture_default_str();
  command->add_option("--chunk", options->chunk, "Pipelining chunk (default: the cluster's collective.chunk_size)");
  command->add_option("--packet", options->packet, "Packet size (default: the cluster's collective.packet_size)");
  command->add_option("--out", options->out, "Folder for collective.csv");
  command->add_option("--set", options->sets, "KEY=VALUE override of a cluster key (repeatable)");
  command->add_flag("--quiet", options->quiet,
                    "No progress lines; with --out no table, only the line naming collective.csv");
  add_allow_large_flag(*command, options->allow_large);
  command->callback([options, &exit_code]() { exit_code = run_collective_command(*options); });
}

int run_net_bench() {
  // Ring allreduce of 1 GB over H100-class links on a switch: the event count grows with ranks x steps x chunks.
  ClusterParams cluster;
  cluster.name = "bench";
  cluster.topology = TopologyKind::switch_star;
  cluster.link = LinkParams{450e9, 0.5e-6, 0.0};
  std::optional<HardwareParams> reduction_device;
  const auto device_file = resolve_data_file("H100-SXM5", "configs");
  if (std::filesystem::exists(device_file)) reduction_device = load_hardware(device_file);
  const Bytes bytes = 1000000000;
  std::cout << fmt::format("{:>8} {:>12} {:>12} {:>12} {:>12} {:>14} {:>12}\n", "ranks", "messages", "events", "wall_s",
                           "events/s", "sim_time_us", "busbw_GB/s");
  for (const std::uint64_t ranks : {8, 64, 1024}) {
    cluster.devices = ranks;
    const auto timed =
        time_ring_allreduce(cluster, bytes, 1024 * 1024, 64 * 1024, reduction_device ? &*reduction_device : nullptr);
    const auto& run = timed.run;
    const double busbw = static_cast<double>(bytes) / run.time_s * timed.bus_factor / 1e9;
    std::cout << fmt::format("{:>8} {:>12} {:>12} {:>12.3f} {:>12.3g} {:>14.1f} {:>12.1f}\n", ranks, run.transfers,
                             run.events, timed.wall_s, static_cast<double>(run.events) / timed.wall_s, run.time_s * 1e6,
                             busbw);
  }
  return 0;
}

}  // namespace roofsim::cli
