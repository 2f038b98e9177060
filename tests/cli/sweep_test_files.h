#pragma once
// Small sweep files for the sweep command tests, written into a test's scratch folder. `mode = "roofline"` keeps each
// point to a few milliseconds.
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/test_paths.h"

namespace roofsim::test {

// The bundled gemm workload (ops m x n x k: size x size x size, size x skinny x size, ...) over a 3 x 3 grid.
inline std::string grid_sweep_text(const std::string& extra_axis_values = "[16, 32, 64]") {
  return R"([sweep]
name = "grid"
mode = "roofline"
hardware = "H100-SXM5"
workload = "gemm"
metrics = ["useful_flops", "bytes.dram", "attainable_flops_per_s", "bound_by"]

[[axis]]
key = "workload.params.size"
label = "size"
values = [256, 512, 1024]

[[axis]]
key = "workload.params.skinny"
label = "skinny"
values = )" +
         extra_axis_values + "\n";
}

inline std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

}  // namespace roofsim::test
