#include "models/net/reduction_model.h"

#include <algorithm>

namespace roofsim::net {

ReductionModel::ReductionModel(const ReductionParams& params) {
  const double compute_s_per_byte = 1.0 / (static_cast<double>(element_bytes(params.type)) * params.flops_per_s);
  const double memory_s_per_byte = params.memory_bytes_per_s > 0 ? 3.0 / params.memory_bytes_per_s : 0.0;
  gamma_s_per_byte_ = std::max(compute_s_per_byte, memory_s_per_byte);
}

ReductionModel ReductionModel::per_byte(Seconds gamma_s_per_byte) {
  ReductionModel model;
  model.gamma_s_per_byte_ = gamma_s_per_byte;
  return model;
}

}  // namespace roofsim::net
