// A cluster file, as `validate`, `run --hw` and `collective` load it; its device file is looked up among the bundled
// ones.
#include "sim/config/cluster_params.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofsim;
  const auto file = fuzz::input_file("cluster.toml", data, size);
  fuzz::load_expecting_input_errors([&] { (void)load_cluster(file, {}, fuzz::harness_limits()); });
  return 0;
}
