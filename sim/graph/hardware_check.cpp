#include "sim/graph/hardware_check.h"

#include <algorithm>

#include "sim/config/quantity.h"
#include "sim/graph/counting.h"
#include "sim/graph/lowering.h"

namespace roofsim {

namespace {

std::uint64_t clip(std::uint64_t tile, std::uint64_t dimension) {
  return std::max<std::uint64_t>(1, std::min(tile, dimension));
}

bool computes(OpKind kind) {
  switch (kind) {
    case OpKind::embedding:
    case OpKind::allgather:
    case OpKind::alltoall:
    case OpKind::broadcast:
    case OpKind::sendrecv: return false;
    default: return true;
  }
}

std::string engine_names(const HardwareParams& hardware) {
  std::string names;
  for (const auto& engine : hardware.compute.engines) {
    if (!names.empty()) names += ", ";
    names += engine.name;
  }
  return names;
}

std::string op_label(const Op& op) {
  return "op '" + op.name + "' (" + std::string(to_string(op.kind)) + ")";
}

}  // namespace

MinimalTile minimal_tile(const Op& op, const HardwareParams& hardware) {
  const Bytes element = element_bytes(op.dtype);
  const auto& s = op.shape;
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::conv2d: {
      TileShape tile{kMinimalGemmTile, kMinimalGemmTile, kMinimalGemmTile};
      if (op.tile) {
        tile = *op.tile;
      } else if (hardware.compute.default_tile) {
        tile = choose_gemm_tile(op, hardware);
      }
      std::uint64_t m = s.m, n = s.n, k = s.k;
      if (op.kind == OpKind::conv2d) {
        m = checked_mul(checked_mul(s.batch, conv_output_height(s)), conv_output_width(s));
        n = s.filters;
        k = checked_mul(checked_mul(s.channels, s.kernel_h), s.kernel_w);
      }
      const auto tm = clip(tile.m, m), tn = clip(tile.n, n), tk = clip(tile.k, k);
      const Bytes bytes = checked_mul(checked_add(checked_mul(tm, tk), checked_mul(tk, tn)), element);
      return {bytes, std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(tk) + " GEMM k-step"};
    }
    case OpKind::attention: {
      const auto br = clip(kMinimalAttentionBlock, s.seq_q), bc = clip(kMinimalAttentionBlock, s.seq_kv);
      const Bytes operands = checked_mul(checked_mul(br + 2 * bc, s.head_dim), element);
      const Bytes on_chip = checked_mul(checked_add(checked_mul(br, bc), checked_mul(br, s.head_dim)), 4);
      return {checked_add(operands, on_chip), std::to_string(br) + "x" + std::to_string(bc) +
                                                  " attention block of head_dim " + std::to_string(s.head_dim)};
    }
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::rmsnorm: return {checked_mul(s.cols, element), "one row of " + std::to_string(s.cols) + " elements"};
    default: {
      const auto operands = static_cast<std::uint64_t>(op.inputs.size() + op.outputs.size());
      return {checked_mul(std::max<std::uint64_t>(1, operands), hardware.compute.request_bytes),
              "one request chunk per operand"};
    }
  }
}

const EngineParams* op_engine(const Op& op, const ComputeParams& compute) {
  if (!op.engine.empty()) return compute.engine_for(op.dtype, op.engine);
  const bool matrix_work = op.kind == OpKind::gemm || op.kind == OpKind::conv2d || op.kind == OpKind::attention;
  if (!matrix_work) {
    if (const auto* vector = compute.engine_for(op.dtype, "vector")) return vector;
  }
  return compute.engine_for(op.dtype);
}

DataType vector_data_type(const Op& op) {
  return op.kind == OpKind::attention ? DataType::fp32 : op.dtype;
}

std::array<ComputeParams::Route, 6> op_routes(const Op& op, const ComputeParams& compute, const EngineParams& own) {
  return compute.routes(own, op.dtype, vector_data_type(op));
}

std::vector<double> engine_seconds(const PhaseWork& work, const std::array<ComputeParams::Route, 6>& routes,
                                   std::size_t engines) {
  std::vector<double> seconds(engines, 0.0);
  const std::array<std::uint64_t, 6> counts = {work.flops, work.vector_fma, work.vector_alu,
                                               work.exp2,  work.reciprocal, work.rsqrt};
  for (std::size_t kind = 0; kind < counts.size(); ++kind) {
    if (counts[kind] == 0 || routes[kind].per_unit_per_s <= 0 || routes[kind].index >= engines) continue;
    seconds[routes[kind].index] += static_cast<double>(counts[kind]) / routes[kind].per_unit_per_s;
  }
  return seconds;
}

std::size_t binding_engine(const std::vector<double>& seconds, std::size_t own) {
  std::size_t best = own;
  for (std::size_t e = 0; e < seconds.size(); ++e) {
    if (seconds[e] > (best < seconds.size() ? seconds[best] : 0.0)) best = e;
  }
  return best;
}

const EngineParams* check_op_engine(const Op& op, const HardwareParams& hardware) {
  if (!op.engine.empty()) {
    const auto* named = hardware.compute.engine(op.engine);
    if (named == nullptr) {
      throw InputError(op.pos, op_label(op) + ": engine '" + op.engine + "' does not exist on " + hardware.name +
                                   " (engines: " + engine_names(hardware) + ")");
    }
    if (computes(op.kind) && !named->supports(op.dtype)) {
      throw InputError(op.pos, op_label(op) + ": engine '" + op.engine + "' of " + hardware.name + " has no " +
                                   std::string(to_string(op.dtype)) + " support");
    }
    return named;
  }
  if (!computes(op.kind)) return nullptr;
  const auto* chosen = op_engine(op, hardware.compute);
  if (chosen == nullptr) {
    throw InputError(op.pos, op_label(op) + ": " + hardware.name + " has no engine for " +
                                 std::string(to_string(op.dtype)) + " (engines: " + engine_names(hardware) + ")");
  }
  return chosen;
}

void check_workload_against_hardware(const Workload& workload, const HardwareParams& hardware) {
  const MemoryLevelParams* local = hardware.local_level();
  for (const auto& op : workload.ops) {
    (void)check_op_engine(op, hardware);
    if (local == nullptr) continue;
    const auto tile = minimal_tile(op, hardware);
    if (tile.bytes > local->capacity_bytes) {
      throw InputError(op.pos, op_label(op) + ": its minimal tile (" + tile.description + ", " +
                                   format_bytes(tile.bytes) + ") does not fit the local SRAM level '" + local->name +
                                   "' of " + hardware.name + " (" + format_bytes(local->capacity_bytes) + ")");
    }
  }
}

}  // namespace roofsim
