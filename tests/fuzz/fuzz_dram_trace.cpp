// A request trace of `roofsim dram`.
#include "sim/engine/dram_trace_reader.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofsim;
  const auto file = fuzz::input_file("trace.txt", data, size);
  fuzz::load_expecting_input_errors([&] { (void)read_dram_trace(file.string(), 64); });
  return 0;
}
