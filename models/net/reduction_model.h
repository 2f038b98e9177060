#pragma once
// The time a device takes to reduce a received buffer into its own: the roofline of the reduction on that device.
// Reducing n bytes of elements of b bytes is n / b additions on the vector engine and 3 n bytes of memory traffic
// (read both operands, write the result); the slower of the two is the time. Plain C++.
#include "models/net/net_params.h"
#include "sim/core/units.h"

namespace roofsim::net {

class ReductionModel {
 public:
  // No cost at all (gamma = 0).
  ReductionModel() = default;
  // The cost on a device for one element type, from the peak of the engine that adds and its memory bandwidth.
  explicit ReductionModel(const ReductionParams& params);
  // A given cost per byte (tests).
  static ReductionModel per_byte(Seconds gamma_s_per_byte);

  [[nodiscard]] Seconds time_s(Bytes bytes) const { return static_cast<double>(bytes) * gamma_s_per_byte_; }
  // gamma of the alpha-beta-gamma model (Thakur, Rabenseifner, Gropp 2005), s/B.
  [[nodiscard]] Seconds gamma_s_per_byte() const { return gamma_s_per_byte_; }

 private:
  Seconds gamma_s_per_byte_ = 0;
};

}  // namespace roofsim::net
