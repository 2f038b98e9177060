#pragma once
// Checks of a workload against a device: each op's data type and engine must exist, and its minimal tile must fit
// the local SRAM (the first unit-scope level). The minimal tile of every kind is defined here, in one place.
#include <array>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"

namespace roofsim {

// The smallest working set one compute unit must hold on chip to make progress on an op, single-buffered (double
// buffering is an optimisation, not a requirement):
//   gemm, conv2d (as implicit GEMM): one k-step of the op's tile (its own tile, else the device's default tile as
//     the lowering adapts it to the op, else kMinimalGemmTile per side), each side clipped to the op: A (tm x tk) and
//     B (tk x tn) in the op's type. The tm x tn accumulator is not staged: GPUs hold it in the register file (256 KiB
//     per H100 SM, 512 KiB per MI300X CU) and TPUs in the MXU's accumulators, neither of which is an SRAM level here
//   attention: one FlashAttention block (Dao et al. 2022, Algorithm 1) with Br = Bc = kMinimalAttentionBlock rows
//     (clipped to seq_q, seq_kv): Q, K and V blocks of head_dim in the op's type, the Br x Bc score block and the
//     Br x head_dim output accumulator in fp32; naive attention is held to the same block (its QK^T tile is smaller)
//   softmax, layernorm, rmsnorm: one row (cols elements), which the two passes over the row keep on chip
//   elementwise, reduction, embedding, collectives: one request chunk (compute.request_bytes) per operand
struct MinimalTile {
  Bytes bytes = 0;
  std::string description;  // "128x128x32 GEMM k-step", for the error message
};

inline constexpr std::uint64_t kMinimalGemmTile = 16;  // the 16x16x16 MMA of tensor cores and MXU slices
inline constexpr std::uint64_t kMinimalAttentionBlock = 16;

[[nodiscard]] MinimalTile minimal_tile(const Op& op, const HardwareParams& hardware);

// The engine an op runs on: the one it names; else, for matrix work (gemm, conv2d, attention), the fastest engine
// for its data type; else an engine called "vector" when it supports the type (tensor cores and MXUs do not run
// element-wise or row work), else the fastest. nullptr when none runs the type.
[[nodiscard]] const EngineParams* op_engine(const Op& op, const ComputeParams& compute);

// The data type of an op's vector work: fp32 for attention (FlashAttention keeps scores and the softmax in fp32
// registers), else the op's own.
[[nodiscard]] DataType vector_data_type(const Op& op);

// The engine and per-unit rate of each kind of an op's work (ComputeParams::routes) on `own` (op_engine's choice).
[[nodiscard]] std::array<ComputeParams::Route, 6> op_routes(const Op& op, const ComputeParams& compute,
                                                            const EngineParams& own);

// Seconds each engine of one unit spends on `work` at the nominal clocks, indexed as compute.engines.
[[nodiscard]] std::vector<double> engine_seconds(const PhaseWork& work,
                                                 const std::array<ComputeParams::Route, 6>& routes,
                                                 std::size_t engines);

// The engine an op's time on one unit is bound by: the one with the most work in seconds, ties to `own`'s index.
[[nodiscard]] std::size_t binding_engine(const std::vector<double>& seconds, std::size_t own);

// Checked version of op_engine (nullptr for ops that compute nothing: embedding, allgather, alltoall, broadcast,
// sendrecv). Throws InputError naming the op when the engine or the data type is missing.
const EngineParams* check_op_engine(const Op& op, const HardwareParams& hardware);

// Every op: engine and data type, minimal tile vs the local SRAM. Throws InputError naming the op and its position.
void check_workload_against_hardware(const Workload& workload, const HardwareParams& hardware);

}  // namespace roofsim
