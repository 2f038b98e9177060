// A sweep file, as `validate` and `sweep --list` take it: parsed, its keys and values checked against the hardware
// and workload it names, and its points expanded.
#include <string>

#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofsim;
  const auto text = std::string(reinterpret_cast<const char*>(data), size);
  fuzz::load_expecting_input_errors([&] {
    // Relative paths resolve beside the bundled sweeps, so that theirs (workloads/gemm_batch.toml) are found.
    const SweepSpec spec = parse_sweep(text, "sweep.toml", fuzz::source_dir() / "sweeps", fuzz::harness_limits());
    check_sweep_keys(spec);
    (void)expand_points(spec);
  });
  return 0;
}
