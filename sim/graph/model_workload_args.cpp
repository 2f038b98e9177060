#include "sim/graph/model_workload_args.h"

#include <charconv>
#include <cmath>

#include "sim/core/input_error.h"

namespace roofsim {

const std::vector<ModelWorkloadKey>& model_workload_keys() {
  using K = ValueKind;
  static const std::vector<ModelWorkloadKey> keys = {
      {"phase", "-", "prefill", "prefill | decode | train", K::choice, "prefill|decode|train"},
      {"batch", "sequences", "1", "sequences per data-parallel replica and step", K::count, ""},
      {"seq", "tokens", "2048", "tokens per sequence (prefill, train)", K::count, ""},
      {"context", "tokens", "seq", "decode: positions in the KV cache", K::count, ""},
      {"layers", "blocks", "config", "blocks built (the memory footprint counts the whole model)", K::count, ""},
      {"micro_batches", "-", "1", "micro-batches per step (pipeline, gradient accumulation)", K::count, ""},
      {"tp", "ranks", "1", "tensor-parallel degree (Megatron-LM layout)", K::count, ""},
      {"pp", "ranks", "1", "pipeline-parallel stages", K::count, ""},
      {"dp", "ranks", "1", "data-parallel replicas (on a cluster: its devices / (tp x pp))", K::count, ""},
      {"ep", "ranks", "1", "expert-parallel ranks (MoE; within the data-parallel ranks)", K::count, ""},
      {"sequence_parallel", "-", "false", "tp: all-gather / reduce-scatter instead of all-reduce, norms sharded",
       K::flag, ""},
      {"zero", "-", "0", "ZeRO stage 0-3 over the data-parallel ranks", K::integer, ""},
      {"recompute", "-", "none", "none | full activation recomputation (train)", K::choice, "none|full"},
      {"pipeline_schedule", "-", "1f1b", "gpipe | 1f1b | interleaved", K::choice, "gpipe|1f1b|interleaved"},
      {"virtual_stages", "chunks", "2", "interleaved: model chunks per stage", K::count, ""},
      {"routing", "-", "balanced", "balanced | zipf token routing over experts", K::choice, "balanced|zipf"},
      {"zipf_s", "-", "1.0", "zipf exponent of expert popularity", K::real, ""},
      {"seed", "-", "0", "zipf: seed of the popularity permutation", K::integer, ""},
      {"capacity_factor", "-", "0", "expert capacity = factor x assignments / experts (0: unlimited)", K::real, ""},
      {"dtype", "-", "bf16", "compute data type (fp32 master weights and Adam moments in training)", K::choice,
       "bf16|fp16|fp8|fp32"},
  };
  return keys;
}

std::string_view to_string(ModelPhase phase) {
  switch (phase) {
    case ModelPhase::prefill: return "prefill";
    case ModelPhase::decode: return "decode";
    case ModelPhase::train: return "train";
  }
  return "";
}

namespace {

// One key and where it was given, for errors.
struct Given {
  const Override& o;
  const SourcePos& pos;
};

[[noreturn]] void fail(const Given& g, const std::string& expected) {
  throw InputError(g.pos, "workload." + g.o.key, g.o.value, expected);
}

std::uint64_t positive(const Given& g, std::uint64_t at_least = 1) {
  const Override& o = g.o;
  std::uint64_t value = 0;
  const auto* end = o.value.data() + o.value.size();
  const auto [ptr, ec] = std::from_chars(o.value.data(), end, value);
  if (ec != std::errc() || ptr != end || value < at_least) {
    fail(g, at_least == 0 ? "an integer >= 0" : "an integer >= " + std::to_string(at_least));
  }
  return value;
}

double number(const Given& g) {
  const Override& o = g.o;
  try {
    std::size_t used = 0;
    const double value = std::stod(o.value, &used);
    if (used != o.value.size() || !std::isfinite(value) || value < 0) fail(g, "a number >= 0");
    return value;
  } catch (const std::logic_error&) {
    fail(g, "a number >= 0");
  }
}

bool flag(const Given& g) {
  if (g.o.value == "true") return true;
  if (g.o.value == "false") return false;
  fail(g, "true or false");
}

}  // namespace

void apply_model_workload_key(ModelWorkloadArgs& a, const Override& o, const SourcePos& pos, bool* dp_unset) {
  const Given g{o, pos};
  const std::string& k = o.key;
  if (k == "phase") {
    if (o.value == "prefill")
      a.phase = ModelPhase::prefill;
    else if (o.value == "decode")
      a.phase = ModelPhase::decode;
    else if (o.value == "train")
      a.phase = ModelPhase::train;
    else
      fail(g, "prefill, decode or train");
  } else if (k == "batch") {
    a.batch = positive(g);
  } else if (k == "seq") {
    a.seq = positive(g);
  } else if (k == "context") {
    a.context = positive(g);
  } else if (k == "layers") {
    a.layers = positive(g);
  } else if (k == "micro_batches") {
    a.micro_batches = positive(g);
  } else if (k == "tp") {
    a.tp = positive(g);
  } else if (k == "pp") {
    a.pp = positive(g);
  } else if (k == "dp") {
    a.dp = positive(g);
    if (dp_unset != nullptr) *dp_unset = false;
  } else if (k == "ep") {
    a.ep = positive(g);
  } else if (k == "sequence_parallel") {
    a.sequence_parallel = flag(g);
  } else if (k == "zero") {
    a.zero = positive(g, 0);
    if (a.zero > 3) fail(g, "a ZeRO stage 0, 1, 2 or 3");
  } else if (k == "recompute") {
    if (o.value == "none")
      a.recompute = Recompute::none;
    else if (o.value == "full")
      a.recompute = Recompute::full;
    else
      fail(g, "none or full");
  } else if (k == "pipeline_schedule") {
    if (o.value == "gpipe")
      a.pipeline_schedule = PipelineScheduleKind::gpipe;
    else if (o.value == "1f1b")
      a.pipeline_schedule = PipelineScheduleKind::one_f_one_b;
    else if (o.value == "interleaved")
      a.pipeline_schedule = PipelineScheduleKind::interleaved;
    else
      fail(g, "gpipe, 1f1b or interleaved");
  } else if (k == "virtual_stages") {
    a.virtual_stages = positive(g);
  } else if (k == "routing") {
    if (o.value == "balanced")
      a.routing.kind = RoutingKind::balanced;
    else if (o.value == "zipf")
      a.routing.kind = RoutingKind::zipf;
    else
      fail(g, "balanced or zipf");
  } else if (k == "zipf_s") {
    a.routing.zipf_s = number(g);
  } else if (k == "seed") {
    a.routing.seed = positive(g, 0);
  } else if (k == "capacity_factor") {
    a.routing.capacity_factor = number(g);
  } else if (k == "dtype") {
    const auto dtype = parse_data_type(o.value);
    if (!dtype ||
        (*dtype != DataType::bf16 && *dtype != DataType::fp16 && *dtype != DataType::fp32 && *dtype != DataType::fp8)) {
      fail(g, "bf16, fp16, fp8 or fp32");
    }
    a.dtype = *dtype;
  } else {
    std::string known;
    for (const auto& key : model_workload_keys()) known += (known.empty() ? "" : ", ") + std::string(key.name);
    fail(g, "a key of a --model workload (" + known + ")");
  }
}

ModelWorkloadArgs read_model_workload_args(const std::vector<Override>& overrides, bool* dp_unset) {
  ModelWorkloadArgs a;
  if (dp_unset != nullptr) *dp_unset = true;
  const SourcePos command_line{"--set"};
  for (const auto& o : overrides) apply_model_workload_key(a, o, command_line, dp_unset);
  return a;
}

}  // namespace roofsim
