#pragma once
// Reading a DRAM standard file (one per standard and speed in configs/dram/) into the DRAM model's parameters
// (models/dram/dram_params.h).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/dram/dram_params.h"
#include "sim/core/units.h"

namespace roofsim {

class KeyRegistry;
[[nodiscard]] const KeyRegistry& dram_standard_registry();

// Reads and validates one DRAM standard file. `data_rate_bits_per_s` > 0 re-times the standard to another pin rate:
// tCK scales, timings given in ns keep their duration (and so grow in cycles), timings given in cycles stay.
[[nodiscard]] DramStandardParams load_dram_standard(const std::filesystem::path& file, double data_rate_bits_per_s = 0);

}  // namespace roofsim
