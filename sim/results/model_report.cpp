#include "sim/results/model_report.h"

#include <ostream>

#include <fmt/format.h>

#include "sim/graph/model_counts.h"

namespace roofsim {

nlohmann::ordered_json model_report_json(const ModelWorkload& model, Bytes capacity_bytes) {
  const auto& c = model.config;
  const auto& a = model.args;
  const auto counts = count_model_params(c);
  nlohmann::ordered_json j;
  j["name"] = c.name;
  j["file"] = c.file;
  j["model_type"] = c.model_type;
  j["params"] = counts.total;
  j["active_params_per_token"] = counts.active_per_token;
  j["forward_matmul_flops_per_token"] = 2 * matmul_params_per_token(c);
  j["phase"] = std::string(to_string(a.phase));
  j["layers_built"] = a.layers == 0 ? c.layers : a.layers;
  j["batch_sequences"] = a.batch;
  j["seq_tokens"] = a.seq;
  j["layout"] = {{"tp", a.tp},
                 {"pp", a.pp},
                 {"dp", a.dp},
                 {"ep", a.ep},
                 {"sequence_parallel", a.sequence_parallel},
                 {"zero", a.zero},
                 {"recompute", a.recompute == Recompute::full ? "full" : "none"},
                 {"micro_batches", a.micro_batches}};
  const auto& m = model.memory;
  j["memory_per_rank_bytes"] = {
      {"params", m.params_bytes},       {"grads", m.grads_bytes},
      {"optimizer", m.optimizer_bytes}, {"activations", m.activations_bytes},
      {"kv_cache", m.kv_cache_bytes},   {"total", m.total_bytes()},
      {"capacity", capacity_bytes},     {"micro_batches_in_flight", m.micro_batches_in_flight}};
  if (c.moe()) {
    j["moe"] = {{"routing", a.routing.kind == RoutingKind::zipf ? "zipf" : "balanced"},
                {"zipf_s", a.routing.zipf_s},
                {"seed", a.routing.seed},
                {"capacity_factor", a.routing.capacity_factor},
                {"expert_rank_built", model.expert_rank},
                {"expert_rank_share", model.expert_rank_share},
                {"dropped_assignments_per_layer", model.dropped_per_layer}};
  }
  if (model.pipeline) {
    j["pipeline"] = {{"schedule", std::string(to_string(a.pipeline_schedule))},
                     {"bubble_fraction", model.pipeline->bubble_fraction},
                     {"micro_batches_in_flight", model.pipeline->peak_in_flight}};
  }
  return j;
}

void write_model_summary(const ModelWorkload& model, Bytes capacity_bytes, bool verbose, std::ostream& out) {
  const auto& c = model.config;
  const auto& a = model.args;
  const auto counts = count_model_params(c);
  out << fmt::format(
      "model {} ({}): {:.3f} B parameters, {:.3f} B active per token; {} of {} layers built, phase "
      "{}, tp {} pp {} dp {} ep {}\n",
      c.name, c.model_type, static_cast<double>(counts.total) * 1e-9,
      static_cast<double>(counts.active_per_token) * 1e-9, a.layers == 0 ? c.layers : a.layers, c.layers,
      to_string(a.phase), a.tp, a.pp, a.dp, a.ep);
  out << "memory per rank: " << model.memory.breakdown()
      << fmt::format(" (device {:.2f} GiB)\n", static_cast<double>(capacity_bytes) / static_cast<double>(1ULL << 30));
  if (c.moe()) {
    out << fmt::format("experts: the graph is expert rank {} with {:.2f}% of the assignments; {} dropped per layer\n",
                       model.expert_rank, 100.0 * model.expert_rank_share, model.dropped_per_layer);
  }
  if (model.pipeline) {
    out << fmt::format(
        "pipeline: {} schedule, bubble {:.2f}% of the step, {} micro-batches in flight on stage 0 "
        "(the simulated stage runs its micro-batches in GPipe order)\n",
        to_string(a.pipeline_schedule), 100.0 * model.pipeline->bubble_fraction, model.pipeline->peak_in_flight);
  }
  if (verbose) {
    std::string unused;
    for (const auto& field : c.unused_fields) unused += (unused.empty() ? "" : ", ") + field;
    out << "config fields not used: " << (unused.empty() ? "none" : unused) << "\n";
  }
  out << "\n";
}

}  // namespace roofsim
