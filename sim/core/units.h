#pragma once
// Type aliases that carry meaning, so that signatures read like the physics (as ASTRA-sim's analytical backend does).
// Counts are exact 64-bit integers; rates and times are doubles in base SI units.
#include <cstdint>

namespace roofsim {

using Bytes = std::uint64_t;    // bytes
using Flops = std::uint64_t;    // floating-point operations (an FMA counts 2)
using Cycles = std::uint64_t;   // clock cycles of a named clock
using Seconds = double;         // s
using Hertz = double;           // 1/s
using BytesPerSecond = double;  // B/s
using FlopsPerSecond = double;  // FLOP/s
using FlopsPerByte = double;    // FLOP/B (operational intensity)
using Watts = double;           // W
using Joules = double;          // J
using Volts = double;           // V

}  // namespace roofsim
