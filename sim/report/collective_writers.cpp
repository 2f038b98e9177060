#include "sim/report/collective_writers.h"

#include <map>
#include <ostream>

#include <fmt/format.h>

#include "sim/config/quantity.h"
#include "sim/core/data_type.h"

namespace roofsim {

void write_collective_table(const CollectiveSweep& sweep, const ClusterParams& cluster, const std::string& op_name,
                            const std::string& algorithm_name, std::ostream& out) {
  const Bytes element = element_bytes(cluster.collective.data_type);
  out << fmt::format("# roofsim collective: {} on {} ({} ranks, {} topology)\n", op_name, cluster.name, sweep.ranks,
                     to_string(cluster.topology));
  out << fmt::format("# algorithm {}, type {}, chunk {}, packet {}, reduction gamma {:.4g} ps/B ({})\n", algorithm_name,
                     to_string(cluster.collective.data_type), format_bytes(sweep.chunk_bytes),
                     format_bytes(sweep.packet_bytes), sweep.gamma_s_per_byte * 1e12,
                     cluster.collective.reduce_cost == ReduceCost::device ? "device vector engine and memory" : "free");
  out << "# busbw = algbw x "
      << (sweep.op == net::CollectiveOp::broadcast   ? "1"
          : sweep.op == net::CollectiveOp::allreduce ? "2(n-1)/n"
                                                     : "(n-1)/n")
      << fmt::format(" = {:.4f} (nccl-tests); pred: alpha-beta-gamma prediction (Thakur, Rabenseifner, Gropp 2005)\n",
                     sweep.bus_factor);
  out << "# sim/pred < 1 where chunks pipeline what the formula counts in full (latencies, reductions); > 1 where "
         "links are shared or packets store and forward\n";
  out << fmt::format("{:>14} {:>12} {:>6} {:>12} {:>12} {:>11} {:>11} {:>12} {:>11} {:>9}\n", "size", "count", "type",
                     "algo", "time_us", "algbw_GB/s", "busbw_GB/s", "pred_us", "pred_busbw", "sim/pred");
  std::map<std::string, net::Prediction> formulas;
  for (const auto& row : sweep.rows) {
    const double time_s = row.run.time_s;
    const double algbw = static_cast<double>(row.bytes) / time_s / 1e9;
    const double pred_algbw = static_cast<double>(row.bytes) / row.prediction.time_s / 1e9;
    out << fmt::format("{:>14} {:>12} {:>6} {:>12} {:>12.2f} {:>11.2f} {:>11.2f} {:>12.2f} {:>11.2f} {:>9.3f}\n",
                       row.bytes, row.bytes / element, to_string(cluster.collective.data_type), row.algorithm,
                       time_s * 1e6, algbw, algbw * sweep.bus_factor, row.prediction.time_s * 1e6,
                       pred_algbw * sweep.bus_factor, time_s / row.prediction.time_s);
    formulas.emplace(row.algorithm, row.prediction);
  }
  for (const auto& [name, prediction] : formulas) {
    out << fmt::format("# {}: {}; a = {:.3f} us (latency {:.3f} + overhead {:.3f}), 1/b = {:.2f} GB/s\n", name,
                       prediction.formula, prediction.cost.alpha_s() * 1e6, prediction.cost.latency_s * 1e6,
                       prediction.cost.overhead_s * 1e6,
                       prediction.cost.beta_s_per_byte > 0 ? 1e-9 / prediction.cost.beta_s_per_byte : 0.0);
  }
}

void write_collective_csv(const CollectiveSweep& sweep, const ClusterParams& cluster, const std::string& op_name,
                          std::ostream& out) {
  const Bytes element = element_bytes(cluster.collective.data_type);
  out << "op,ranks,size_bytes,count,type,algorithm,time_us,algbw_GB_per_s,busbw_GB_per_s,pred_time_us,"
         "pred_busbw_GB_per_s,formula,events\n";
  for (const auto& row : sweep.rows) {
    const double algbw = static_cast<double>(row.bytes) / row.run.time_s / 1e9;
    const double pred_algbw = static_cast<double>(row.bytes) / row.prediction.time_s / 1e9;
    out << fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},\"{}\",{}\n", op_name, sweep.ranks,
                       row.bytes, row.bytes / element, to_string(cluster.collective.data_type), row.algorithm,
                       row.run.time_s * 1e6, algbw, algbw * sweep.bus_factor, row.prediction.time_s * 1e6,
                       pred_algbw * sweep.bus_factor, row.prediction.formula, row.run.events);
  }
}

}  // namespace roofsim
