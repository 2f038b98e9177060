// A device file, as `validate` and `run --hw` load it; the DRAM standard it names is looked up among the bundled ones.
#include "sim/config/hardware_params.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofsim;
  const auto file = fuzz::input_file("device.toml", data, size);
  fuzz::load_expecting_input_errors([&] { (void)load_hardware(file); });
  return 0;
}
