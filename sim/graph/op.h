#pragma once
// The workload side's vocabulary: tensors with real address ranges and ops with their shapes and exact counts.
// Shared by the graph (building), the roofline (ceilings), the engine (lowering into tiles) and the reports.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/core/data_type.h"
#include "sim/core/input_error.h"
#include "sim/core/units.h"
#include "sim/graph/gemm_decomposition.h"

namespace roofsim {

enum class OpKind {
  gemm,         // batched: C[b] (m x n) = A[b] (m x k) * B[b] (k x n)
  conv2d,       // NCHW input, KCRS filter; run as implicit GEMM
  elementwise,  // out = f(in_1, ..., in_n) per element
  reduction,    // rows x cols -> rows
  softmax,      // per row
  layernorm,    // per row
  rmsnorm,      // per row
  attention,    // softmax(Q K^T) V; naive (score matrix in memory) or flash (tiled, scores on chip)
  embedding,    // gather of rows of a table at token indices
  allreduce,
  allgather,
  reducescatter,
  alltoall,
  broadcast,
  sendrecv,
};

[[nodiscard]] std::string_view to_string(OpKind kind);
[[nodiscard]] std::optional<OpKind> parse_op_kind(std::string_view name);
[[nodiscard]] bool is_collective(OpKind kind);

struct Tensor {
  std::string name;
  std::vector<std::uint64_t> shape;  // elements per dimension, outermost first
  DataType dtype = DataType::fp16;
  Bytes bytes = 0;        // product of the shape x element size
  Bytes address = 0;      // start of its range in device memory (allocated by the graph, aligned)
  bool resident = false;  // weights kept on chip (SRAM-centric designs); not read from DRAM
};

// Shape of an op, by kind. Unused fields stay 0. All counts are elements.
struct OpShape {
  std::uint64_t batch = 1;                            // gemm batch, attention batch, conv N
  std::uint64_t m = 0, n = 0, k = 0;                  // gemm; conv2d as implicit GEMM: m = N*P*Q, n = K, k = C*R*S
  std::uint64_t channels = 0, height = 0, width = 0;  // conv2d input C, H, W
  std::uint64_t filters = 0, kernel_h = 0, kernel_w = 0, stride = 1, padding = 0;  // conv2d K, R, S
  std::uint64_t elements = 0;                                                      // elementwise
  std::uint64_t flops_per_element = 1;  // elementwise, reduction, norms: FLOPs per input element
  // elementwise: special-function operations per element (GELU's tanh: 1 exp2; SiLU's sigmoid: 1 exp2, 1 reciprocal)
  std::uint64_t exp2_per_element = 0, reciprocal_per_element = 0;
  std::uint64_t rows = 0, cols = 0;  // reduction, softmax, norms; embedding: rows = tokens, cols = hidden
  std::uint64_t vocab = 0;           // embedding table rows
  std::uint64_t heads = 0, kv_heads = 0, seq_q = 0, seq_kv = 0, head_dim = 0;  // attention
  bool causal = false;      // attention: only keys at or before the query
  bool flash = false;       // attention: flash (tiled) rather than naive
  Bytes message_bytes = 0;  // collectives: bytes per rank (the buffer size S)
  std::uint64_t group = 0;  // collectives: ranks taking part (0: all devices)
  // collectives and sendrecv: ranks between consecutive members of a group (1: blocks of consecutive ranks; tp for a
  // pipeline's stages and tp x pp for data-parallel replicas when ranks are laid out tp innermost, as Megatron-LM does)
  std::uint64_t group_stride = 1;
  // sendrecv between pipeline stages (ranks of a group in order): the stage of the other side relative to this one,
  // +1 the next, -1 the previous; `receive`: the op receives from it rather than sends to it. peer 0 is the shift
  // where every rank of the group sends to the next.
  std::int32_t peer = 0;
  bool receive = false;
  // elementwise: 0 streams the elements once; n > 0 runs the Empirical Roofline Toolkit's kernel in place over the
  // op's one tensor (input and output), each tile passing n times over its own slice (sim/graph/lowering_ert.cpp).
  std::uint64_t ert_passes = 0;
};

struct Op {
  std::string name;
  OpKind kind = OpKind::elementwise;
  DataType dtype = DataType::fp16;
  std::string engine;  // "" = the fastest engine for the data type
  OpShape shape;
  std::optional<TileShape> tile;  // op-level tile override
  // gemm: the kind of decomposition to run (the fastest predicted of that kind); none: the fastest of all.
  std::optional<GemmDecompositionKind> decomposition;
  std::optional<KernelSchedule> schedule;  // how its tiles order their steps' phases; none: the device's default
  std::vector<std::size_t> inputs;         // indices into Workload::tensors
  std::vector<std::size_t> outputs;
  // Intermediate tensors the op keeps in device memory that are not compulsory traffic: naive attention's score
  // matrix (written and read back by the kernel, absent from bytes_read/bytes_written). Allocated like the others.
  std::vector<std::size_t> scratch;
  std::vector<std::size_t> after;  // ops (indices into Workload::ops) this op depends on: producers
                                   // of its inputs and explicit `after = [...]`
  SourcePos pos;                   // where the op (or the template that made it) was written

  // Counts, filled by the graph when the op is built (exact, 64-bit).
  Flops useful_flops = 0;         // 2MNK for GEMM; the algorithm's FLOPs, never the padded tiles'
  Bytes bytes_read = 0;           // compulsory: each input read once
  Bytes bytes_written = 0;        // compulsory: each output written once
  Bytes resident_bytes_read = 0;  // the part of bytes_read that comes from resident tensors (kept on chip)
  Bytes network_bytes = 0;        // collectives: bytes this device sends under the default algorithm (ring)
  // Expected DRAM row locality for the analytic DRAM-aware line: 1 for streams, 0 for gathers (DESIGN.md 5).
  double analytic_row_hit_rate = 1.0;

  [[nodiscard]] Bytes compulsory_bytes() const { return bytes_read + bytes_written; }
};

}  // namespace roofsim
