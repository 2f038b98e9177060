// A DRAM standard file, as `validate` and `dram --hw` load it, and re-timed to another pin rate as a device's
// `dram.data_rate` does.
#include "sim/config/dram_params.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofsim;
  const auto file = fuzz::input_file("standard.toml", data, size);
  fuzz::load_expecting_input_errors([&] { (void)load_dram_standard(file); });
  fuzz::load_expecting_input_errors([&] { (void)load_dram_standard(file, 3.2e9); });
  return 0;
}
