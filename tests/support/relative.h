#pragma once
// Relative comparison for physical results. doctest's Approx adds a scale of 1 to its tolerance, which makes it far
// too loose for times in seconds and lenient for ratios near 1; use this for closed-form checks.
#include <cmath>

namespace roofsim::test {

// |measured / expected - 1| <= tolerance (expected must not be 0).
inline bool within(double measured, double expected, double tolerance) {
  return std::abs(measured / expected - 1.0) <= tolerance;
}

}  // namespace roofsim::test
