// The workload file's schema: every key, its unit, default and meaning. `roofsim list --keys` prints this table.
#include "sim/config/key_spec.h"
#include "sim/graph/workload.h"

namespace roofsim {

namespace {
using namespace schema;
// A dimension of a shape (elements, rows, tokens): up to 2^40, a terabyte of int8 along one axis.
constexpr double kDimensionMax = 1099511627776.0;
constexpr ValueRange kDimension = within(1, kDimensionMax);
constexpr ValueRange kTileSide = within(1, 65536);
constexpr ValueRange kSmallCount = within(1, 65536);  // kernel sides, strides, head sizes, tensor-parallel ranks
constexpr ValueRange kHeads = within(1, 1 << 20);
constexpr ValueRange kDevices = within(1, 1 << 24);
// Layers of a template (and micro-batches of a pipeline stage): beyond any model built; the op count the template
// expands to is checked against WorkLimits::ops before it expands.
constexpr ValueRange kLayers = within(1, 10000);
constexpr double kMessageBytes = 16.0 * 1099511627776.0;  // 16 TiB
constexpr std::string_view kDataTypes = "fp64|fp32|tf32|bf16|fp16|fp8|int8";
constexpr std::string_view kOpKinds =
    "gemm|conv2d|elementwise|reduction|softmax|layernorm|rmsnorm|attention|embedding|allreduce|allgather|"
    "reducescatter|alltoall|broadcast|sendrecv";
}  // namespace

const KeyRegistry& workload_registry() {
  static const KeyRegistry registry(
      "workload",
      {
          {"workload", K::section, Q::bytes, req, "", "The workload as a whole"},
          {"workload.name", K::text, Q::bytes, req, "", "Name shown in reports"},
          {"workload.description", K::text, Q::bytes, opt, "", "What the workload is and where its shapes come from"},
          {"workload.devices", K::expression, Q::bytes, opt, "1",
           "Devices the workload runs on (data-parallel ranks); the default group of collectives", Field(), kDevices},
          {"workload.oversubscribe", K::text, Q::bytes, opt, "",
           "A what-if whose tensors exceed a device's dram.capacity: why (a run then warns rather than stopping)"},

          {"params", K::section, Q::bytes, opt, "", "Named integer parameters used by shape expressions"},
          {"params.<name>", K::expression, Q::bytes, opt, "",
           "An integer, or an expression of other parameters (+ - * / % ( ), cdiv(a,b), min(a,b), max(a,b))"},

          {"tensor", K::section_array, Q::bytes, opt, "",
           "Declared tensors (graph inputs, weights); others are inferred from the ops that produce or consume them"},
          {"tensor.[].name", K::text, Q::bytes, req, "", "Tensor name, referenced by ops' inputs and outputs"},
          {"tensor.[].shape", K::any, Q::bytes, opt, "",
           "Elements per dimension, outermost first: integers or expressions (default: inferred from its first op)"},
          {"tensor.[].dtype", K::choice, Q::bytes, opt, "", "Element type (default: its producer's or consumer's)",
           kDataTypes},
          {"tensor.[].resident", K::flag, Q::bytes, opt, "false",
           "Kept on chip (weights of SRAM-centric designs): not read from DRAM"},

          {"op", K::section_array, Q::bytes, opt, "", "Ops, in file order (ties of the topological order keep it)"},
          {"op.[].name", K::text, Q::bytes, req, "", "Op name (unique)"},
          {"op.[].kind", K::choice, Q::bytes, req, "", "What the op computes", kOpKinds},
          {"op.[].dtype", K::choice, Q::bytes, opt, "fp16", "Data type of its operands and compute", kDataTypes},
          {"op.[].engine", K::text, Q::bytes, opt, "",
           "Engine to run on (\"matrix\", \"vector\"); default: the fastest for the data type"},
          {"op.[].inputs", K::text_list, Q::bytes, opt, "",
           "Input tensors (each declared or produced by an op); default: fresh graph inputs <op>.<role>"},
          {"op.[].outputs", K::text_list, Q::bytes, opt, "", "Output tensors; default: <op>.out"},
          {"op.[].after", K::text_list, Q::bytes, opt, "", "Ops this op must follow besides its inputs' producers"},
          {"op.[].tile", K::section, Q::bytes, opt, "", "Tile override for this op (gemm, conv2d)"},
          {"op.[].tile.m", K::expression, Q::bytes, req, "", "Tile rows (elements)", Field(), kTileSide},
          {"op.[].tile.n", K::expression, Q::bytes, req, "", "Tile columns (elements)", Field(), kTileSide},
          {"op.[].tile.k", K::expression, Q::bytes, req, "", "Tile depth of one k-step (elements)", Field(), kTileSide},
          {"op.[].decomposition", K::choice, Q::bytes, opt, "auto",
           "gemm: how its k-steps are dealt to tiles: auto (the lowest predicted time), data-parallel, split-k, "
           "stream-k or hybrid (data-parallel waves and a stream-K tail)",
           "auto|data-parallel|split-k|stream-k|hybrid"},
          {"op.[].batch", K::expression, Q::bytes, opt, "1", "gemm batch count; attention batch; conv2d N", Field(),
           kDimension},
          {"op.[].m", K::expression, Q::bytes, opt, "", "gemm: rows of A and C (elements)", Field(), kDimension},
          {"op.[].n", K::expression, Q::bytes, opt, "", "gemm: columns of B and C (elements)", Field(), kDimension},
          {"op.[].k", K::expression, Q::bytes, opt, "", "gemm: the reduction dimension (elements)", Field(),
           kDimension},
          {"op.[].channels", K::expression, Q::bytes, opt, "", "conv2d: input channels C", Field(), kDimension},
          {"op.[].height", K::expression, Q::bytes, opt, "", "conv2d: input height H", Field(), kDimension},
          {"op.[].width", K::expression, Q::bytes, opt, "", "conv2d: input width W", Field(), kDimension},
          {"op.[].filters", K::expression, Q::bytes, opt, "", "conv2d: output channels K", Field(), kDimension},
          {"op.[].kernel_h", K::expression, Q::bytes, opt, "", "conv2d: filter height R", Field(), kSmallCount},
          {"op.[].kernel_w", K::expression, Q::bytes, opt, "", "conv2d: filter width S (default: kernel_h)", Field(),
           kSmallCount},
          {"op.[].stride", K::expression, Q::bytes, opt, "1", "conv2d: stride", Field(), kSmallCount},
          {"op.[].padding", K::expression, Q::bytes, opt, "0", "conv2d: zero padding on each side", Field(),
           within(0, 65536)},
          {"op.[].elements", K::expression, Q::bytes, opt, "", "elementwise: elements of the output", Field(),
           kDimension},
          {"op.[].flops_per_element", K::expression, Q::bytes, opt, "",
           "elementwise, reduction, softmax, norms: FLOPs per input element (defaults 1, 1, 5, 8 layernorm, 4 "
           "rmsnorm)",
           Field(), within(0, 1e6)},
          {"op.[].exp2_per_element", K::expression, Q::bytes, opt, "0",
           "elementwise: special-function exponentials (or tanh) per element (GELU tanh form 1, SiLU 1)", Field(),
           within(0, 1e6)},
          {"op.[].reciprocal_per_element", K::expression, Q::bytes, opt, "0",
           "elementwise: special-function reciprocals per element (SiLU's sigmoid 1)", Field(), within(0, 1e6)},
          {"op.[].schedule", K::choice, Q::bytes, opt, "device",
           "attention: kernel schedule of its tiles: serial (FlashAttention-2), pingpong (FlashAttention-3) or "
           "device (the hardware file's compute.kernel_schedule)",
           "device|serial|pingpong"},
          {"op.[].rows", K::expression, Q::bytes, opt, "", "reduction, softmax, norms: rows; embedding: tokens",
           Field(), kDimension},
          {"op.[].cols", K::expression, Q::bytes, opt, "", "reduction, softmax, norms: row length; embedding: hidden",
           Field(), kDimension},
          {"op.[].vocab", K::expression, Q::bytes, opt, "", "embedding: rows of the table", Field(), kDimension},
          {"op.[].heads", K::expression, Q::bytes, opt, "", "attention: query heads", Field(), kHeads},
          {"op.[].kv_heads", K::expression, Q::bytes, opt, "", "attention: key/value heads (default: heads)", Field(),
           kHeads},
          {"op.[].seq_q", K::expression, Q::bytes, opt, "", "attention: query positions", Field(), kDimension},
          {"op.[].seq_kv", K::expression, Q::bytes, opt, "", "attention: key/value positions (default: seq_q)", Field(),
           kDimension},
          {"op.[].head_dim", K::expression, Q::bytes, opt, "", "attention: elements per head", Field(), kSmallCount},
          {"op.[].causal", K::flag, Q::bytes, opt, "false", "attention: a query sees only keys at or before it"},
          {"op.[].attention", K::choice, Q::bytes, opt, "flash",
           "attention: flash (tiled, scores stay on chip) or naive (score matrix in memory)", "flash|naive"},
          {"op.[].message_bytes", K::expression, Q::bytes, opt, "",
           "collectives: buffer size S per rank in bytes (default: the input tensor; allgather: the output)", Field(),
           within(0, kMessageBytes)},
          {"op.[].group", K::expression, Q::bytes, opt, "",
           "collectives: ranks taking part (default: workload.devices)", Field(), within(0, 1 << 24)},

          {"template", K::section_array, Q::bytes, opt, "",
           "Templates expanded into ops: transformer_block, mlp, dp_training_step, pipeline_stage"},
          {"template.[].name", K::text, Q::bytes, req, "", "Prefix of the names of the ops and tensors it makes"},
          {"template.[].kind", K::choice, Q::bytes, req, "", "What to expand",
           "transformer_block|mlp|dp_training_step|pipeline_stage"},
          {"template.[].phase", K::choice, Q::bytes, opt, "prefill",
           "transformer_block: prefill (seq tokens) or decode (one token against a KV cache of `context`)",
           "prefill|decode"},
          {"template.[].hidden", K::expression, Q::bytes, req, "", "Model width h (elements)", Field(),
           within(1, 1 << 24)},
          {"template.[].heads", K::expression, Q::bytes, opt, "1", "transformer_block: attention heads", Field(),
           kHeads},
          {"template.[].kv_heads", K::expression, Q::bytes, opt, "", "transformer_block: KV heads (default: heads)",
           Field(), within(0, 1 << 20)},
          {"template.[].ffn", K::expression, Q::bytes, opt, "", "MLP inner width (default: 4 hidden)", Field(),
           within(0, 1 << 26)},
          {"template.[].seq", K::expression, Q::bytes, opt, "1", "Tokens per sequence (prefill, mlp, training)",
           Field(), kDimension},
          {"template.[].context", K::expression, Q::bytes, opt, "",
           "decode: positions in the KV cache including the new token (default: seq)", Field(),
           within(0, kDimensionMax)},
          {"template.[].batch", K::expression, Q::bytes, opt, "1", "Sequences per device", Field(), kDimension},
          {"template.[].layers", K::expression, Q::bytes, opt, "1", "Blocks repeated back to back", Field(), kLayers},
          {"template.[].tensor_parallel", K::expression, Q::bytes, opt, "1",
           "transformer_block: tensor-parallel ranks (heads, kv_heads and ffn split; two activation AllReduces "
           "per block)",
           Field(), kSmallCount},
          {"template.[].micro_batches", K::expression, Q::bytes, opt, "1",
           "pipeline_stage: micro-batches of `batch` sequences (GPipe)", Field(), kLayers},
          {"template.[].training", K::flag, Q::bytes, opt, "false",
           "pipeline_stage: a GPipe training step (every micro-batch's forward, then every backward in reverse)"},
          {"template.[].bucket_size", K::quantity, Q::bytes, opt, "25MiB",
           "dp_training_step: gradients per AllReduce bucket, filled in backward order until at least this size "
           "(PyTorch DDP bucket_cap_mb)",
           Field(), within(1, kMessageBytes)},
          {"template.[].dtype", K::choice, Q::bytes, opt, "fp16", "Data type of every op", kDataTypes},
          {"template.[].engine", K::text, Q::bytes, opt, "", "Engine of every op (default: the fastest)"},
          {"template.[].decomposition", K::choice, Q::bytes, opt, "auto",
           "How every GEMM's k-steps are dealt to tiles (as op.[].decomposition)",
           "auto|data-parallel|split-k|stream-k|hybrid"},
          {"template.[].attention", K::choice, Q::bytes, opt, "flash", "transformer_block: flash or naive attention",
           "flash|naive"},
          {"template.[].causal", K::flag, Q::bytes, opt, "true", "transformer_block: causal (decoder) attention"},
          {"template.[].schedule", K::choice, Q::bytes, opt, "device",
           "Kernel schedule of its attention: serial, pingpong or device (the hardware file's)",
           "device|serial|pingpong"},
          {"template.[].norm", K::choice, Q::bytes, opt, "layernorm", "transformer_block: normalisation",
           "layernorm|rmsnorm"},
          {"template.[].activation", K::choice, Q::bytes, opt, "gelu",
           "MLP activation: gelu, or silu (with gated = true: SwiGLU as in Llama)", "gelu|silu"},
          {"template.[].gated", K::flag, Q::bytes, opt, "false",
           "MLP with a gate projection (SwiGLU: up and gate GEMMs fused into one of width 2 ffn)"},
          {"template.[].resident_weights", K::flag, Q::bytes, opt, "false",
           "Weights stay on chip (SRAM-centric designs): their reads are resident_bytes_read, not DRAM traffic"},
          {"template.[].input", K::text, Q::bytes, opt, "",
           "Input activation tensor (declared or produced); default: a fresh graph input <name>.in"},
          {"template.[].output", K::text, Q::bytes, opt, "", "Output activation tensor; default: <name>.out"},
          {"template.[].after", K::text_list, Q::bytes, opt, "", "Ops its first ops must follow"},
      });
  return registry;
}

}  // namespace roofsim
