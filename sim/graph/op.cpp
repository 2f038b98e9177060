#include "sim/graph/op.h"

#include <array>
#include <utility>

namespace roofsim {

namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, 15> kOpKindNames = {{
    {OpKind::gemm, "gemm"},
    {OpKind::conv2d, "conv2d"},
    {OpKind::elementwise, "elementwise"},
    {OpKind::reduction, "reduction"},
    {OpKind::softmax, "softmax"},
    {OpKind::layernorm, "layernorm"},
    {OpKind::rmsnorm, "rmsnorm"},
    {OpKind::attention, "attention"},
    {OpKind::embedding, "embedding"},
    {OpKind::allreduce, "allreduce"},
    {OpKind::allgather, "allgather"},
    {OpKind::reducescatter, "reducescatter"},
    {OpKind::alltoall, "alltoall"},
    {OpKind::broadcast, "broadcast"},
    {OpKind::sendrecv, "sendrecv"},
}};

}  // namespace

std::string_view to_string(OpKind kind) {
  for (const auto& [candidate, name] : kOpKindNames) {
    if (candidate == kind) return name;
  }
  return "?";
}

std::optional<OpKind> parse_op_kind(std::string_view name) {
  for (const auto& [kind, candidate] : kOpKindNames) {
    if (candidate == name) return kind;
  }
  return std::nullopt;
}

bool is_collective(OpKind kind) {
  switch (kind) {
    case OpKind::allreduce:
    case OpKind::allgather:
    case OpKind::reducescatter:
    case OpKind::alltoall:
    case OpKind::broadcast:
    case OpKind::sendrecv: return true;
    default: return false;
  }
}

}  // namespace roofsim
