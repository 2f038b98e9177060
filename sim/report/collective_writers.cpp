#include "sim/report/collective_writers.h"

#include <map>
#include <ostream>

#include <fmt/format.h>

#include "sim/config/quantity.h"
#include "sim/core/data_type.h"
#include "sim/report/console_table.h"

namespace roofsim {

namespace {

std::string link_text(const LinkParams& link) {
  std::string text = format_si(link.bandwidth_bytes_per_s, "B/s");
  if (link.payload_bandwidth_bytes_per_s() != link.bandwidth_bytes_per_s) {
    text += fmt::format(" ({} of data: {} B packets of {} B payload)",
                        format_si(link.payload_bandwidth_bytes_per_s(), "B/s"),
                        link.packet_payload_bytes + link.packet_header_bytes, link.packet_payload_bytes);
  }
  return text +
         fmt::format(", latency {}, overhead {}", format_si(link.latency_s, "s"), format_si(link.overhead_s, "s"));
}

// A comment of the table, wrapped within kConsoleColumns; every line starts with '#' as nccl-tests' do.
std::string comment_lines(const std::string& text) {
  return wrap_words("# " + text, kConsoleColumns, "#   ") + "\n";
}

}  // namespace

void write_collective_table(const CollectiveSweep& sweep, const ClusterParams& cluster, const std::string& op_name,
                            const std::string& algorithm_name, std::ostream& out) {
  const Bytes element = element_bytes(cluster.collective.data_type);
  // Every figure of the header comes from the parameters as loaded (the file and every --set), not from its name.
  out << comment_lines(fmt::format("roofsim collective: {} on {} x {} ({} ranks, {} topology; cluster file \"{}\")",
                                   op_name, cluster.devices, cluster.device.name, sweep.ranks,
                                   to_string(cluster.topology), cluster.name));
  out << "# link " << link_text(cluster.link) << "\n";
  if (cluster.topology == TopologyKind::two_level) {
    out << comment_lines(fmt::format("{} devices and {} NICs per node{}; host_link {}; nic_link {}; fabric_link {}",
                                     cluster.devices_per_node, cluster.nics_per_node,
                                     cluster.rail_optimized ? ", rail-optimized" : "", link_text(cluster.host_link),
                                     link_text(cluster.nic_link), link_text(cluster.fabric_link)));
  }
  if (cluster.in_switch_reduction) {
    out << "# in-switch reduction (NVLS): engines take in "
        << (cluster.switch_reduction_bytes_per_s > 0 ? format_si(cluster.switch_reduction_bytes_per_s, "B/s")
                                                     : std::string("unlimited"))
        << " of operands\n";
  }
  if (cluster.fabric_reduction_bytes_per_s > 0) {
    out << "# in-network reduction (SHARP, collnet): each fabric switch takes in "
        << format_si(cluster.fabric_reduction_bytes_per_s, "B/s") << " of operands\n";
  }
  out << comment_lines(fmt::format(
      "algorithm {}, protocol {}, ring channels {}, type {}, chunk {}, packet {}, reduction gamma {:.4g} ps/B ({})",
      algorithm_name, sweep.protocol_name, sweep.channels, to_string(cluster.collective.data_type),
      format_bytes(sweep.chunk_bytes), format_bytes(sweep.packet_bytes), sweep.gamma_s_per_byte * 1e12,
      cluster.collective.reduce_cost == ReduceCost::device ? "device vector engine and memory" : "free"));
  out << "# busbw = algbw x "
      << (sweep.op == net::CollectiveOp::broadcast   ? "1"
          : sweep.op == net::CollectiveOp::allreduce ? "2(n-1)/n"
                                                     : "(n-1)/n")
      << fmt::format(" = {:.4f} (nccl-tests)\n", sweep.bus_factor);
  out << comment_lines(
      "pred_us: this model's prediction of the simulated mechanism (pipelined chunks, overlapped reductions, "
      "protocol, channels; alpha_beta.h), also what auto chooses by");
  out << fmt::format("{:>12} {:>11} {:>5} {:>12} {:>6} {:>3} {:>10} {:>11} {:>11} {:>10} {:>10} {:>8}\n", "size",
                     "count", "type", "algo", "proto", "ch", "time_us", "algbw_GB/s", "busbw_GB/s", "pred_us",
                     "pred_busbw", "sim/pred");
  std::map<std::string, net::Prediction> formulas;
  for (const auto& row : sweep.rows) {
    const double time_s = row.run.time_s;
    const double algbw = static_cast<double>(row.bytes) / time_s / 1e9;
    const double pred_algbw = static_cast<double>(row.bytes) / row.prediction.time_s / 1e9;
    out << fmt::format(
        "{:>12} {:>11} {:>5} {:>12} {:>6} {:>3} {:>10.2f} {:>11.2f} {:>11.2f} {:>10.2f} {:>10.2f} {:>8.3f}\n",
        row.bytes, row.bytes / element, to_string(cluster.collective.data_type), row.algorithm, row.protocol,
        row.channels, time_s * 1e6, algbw, algbw * sweep.bus_factor, row.prediction.time_s * 1e6,
        pred_algbw * sweep.bus_factor, time_s / row.prediction.time_s);
    formulas.emplace(row.algorithm, row.prediction);
  }
  for (const auto& [name, prediction] : formulas) {
    out << comment_lines(fmt::format(
        "{}: {}; a = {:.3f} us (latency {:.3f} + overhead {:.3f}), 1/b = {:.2f} GB/s", name, prediction.formula,
        prediction.cost.alpha_s() * 1e6, prediction.cost.latency_s * 1e6, prediction.cost.overhead_s * 1e6,
        prediction.cost.beta_s_per_byte > 0 ? 1e-9 / prediction.cost.beta_s_per_byte : 0.0));
  }
}

void write_collective_csv(const CollectiveSweep& sweep, const ClusterParams& cluster, const std::string& op_name,
                          std::ostream& out) {
  const Bytes element = element_bytes(cluster.collective.data_type);
  out << "op,ranks,device,size_bytes,count,type,algorithm,protocol,channels,time_us,algbw_GB_per_s,busbw_GB_per_s,"
         "pred_time_us,pred_busbw_GB_per_s,formula,events\n";
  for (const auto& row : sweep.rows) {
    const double algbw = static_cast<double>(row.bytes) / row.run.time_s / 1e9;
    const double pred_algbw = static_cast<double>(row.bytes) / row.prediction.time_s / 1e9;
    out << fmt::format("{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},\"{}\",{}\n", op_name,
                       sweep.ranks, cluster.device.name, row.bytes, row.bytes / element,
                       to_string(cluster.collective.data_type), row.algorithm, row.protocol, row.channels,
                       row.run.time_s * 1e6, algbw, algbw * sweep.bus_factor, row.prediction.time_s * 1e6,
                       pred_algbw * sweep.bus_factor, row.prediction.formula, row.run.events);
  }
}

}  // namespace roofsim
