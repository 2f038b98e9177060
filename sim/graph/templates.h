#pragma once
// Templates expand into ops over named tensors: a transformer block (prefill, or decode against a KV cache), an MLP
// and a data-parallel training step. The expansion is plain data (ops with tensor names), built into the DAG like
// hand-written ops, so a template's ops are counted, ordered and checked exactly as if written out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/graph/op.h"

namespace roofsim {

// An op before the graph exists: its tensors and predecessors by name.
struct OpDraft {
  Op op;  // name, kind, dtype, engine, shape, tile and pos are set; inputs/outputs/after are filled by the graph
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> after;
  // An op of the model builder's optimizer step (Adam, ZeRO's all-gather of the updated shard): it runs after the
  // backward pass (model_builder.cpp, defer_optimizer).
  bool optimizer_step = false;
};

// A declared tensor; an empty shape means "infer it from the ops".
struct TensorDraft {
  std::string name;
  std::vector<std::uint64_t> shape;
  std::optional<DataType> dtype;
  bool resident = false;
  SourcePos pos;
};

enum class TemplateKind { transformer_block, mlp, dp_training_step, pipeline_stage };

struct TemplateArgs {
  TemplateKind kind = TemplateKind::transformer_block;
  std::string name;
  SourcePos pos;
  bool decode = false;  // transformer_block: one new token per sequence against a KV cache
  std::uint64_t hidden = 0, heads = 1, kv_heads = 0, ffn = 0, seq = 1, context = 0, batch = 1, layers = 1;
  std::uint64_t devices = 1;  // dp_training_step: ranks of the gradient AllReduce
  // transformer_block: tensor-parallel ranks (Megatron-LM layout): each holds heads/tp, kv_heads/tp and ffn/tp, and
  // AllReduces the block's activations twice per layer (after the output projection and after the MLP).
  std::uint64_t tensor_parallel = 1;
  std::uint64_t micro_batches = 1;   // pipeline_stage: micro-batches of `batch` sequences each
  bool training = false;             // pipeline_stage: forward, then backward of every micro-batch (GPipe)
  Bytes bucket_bytes = 25ULL << 20;  // dp_training_step: gradient bucket size (PyTorch DDP's bucket_cap_mb = 25)
  DataType dtype = DataType::fp16;
  std::string engine;
  std::optional<GemmDecompositionKind> decomposition;  // of every GEMM; none: each the fastest predicted
  std::optional<KernelSchedule> schedule;              // of its attention; none: the device's
  bool flash = true;
  bool causal = true;
  OpKind norm = OpKind::layernorm;
  bool silu = false;              // activation: SiLU rather than GELU
  bool gated = false;             // SwiGLU-style gate
  bool resident_weights = false;  // weights stay on chip (Tensor::resident)
  std::string input;              // "" = a fresh graph input <name>.in
  std::string output;             // "" = <name>.out
  std::vector<std::string> after;
};

struct Expansion {
  std::vector<OpDraft> ops;
  std::vector<TensorDraft> tensors;
};

// FLOPs per element of the MLP activation (documented in templates.cpp).
[[nodiscard]] std::uint64_t activation_flops_per_element(bool silu, bool gated);
// Sets the special-function operations per element of an activation (or its gradient): GELU's tanh runs as one
// special-function op (tanh.approx on the exp2 unit), SiLU's sigmoid 1 / (1 + exp(-x)) as one exp2 and one reciprocal.
void set_activation_special_ops(OpShape& shape, bool silu);

// The ops expand_template makes of `args` (at least that many for dp_training_step, whose gradient buckets depend on
// sizes), from the counts alone: a template of a million layers is refused before it expands. Saturates at the
// largest std::uint64_t.
[[nodiscard]] std::uint64_t template_op_count(const TemplateArgs& args);

// Throws InputError at args.pos naming the template when the arguments are inconsistent (hidden not a multiple of
// heads, heads not a multiple of kv_heads, ...).
[[nodiscard]] Expansion expand_template(const TemplateArgs& args);

}  // namespace roofsim
