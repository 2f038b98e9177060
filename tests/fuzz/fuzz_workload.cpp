// A workload file with its templates: built as `validate` builds it (no device), then loaded against two devices of
// different memory structure (a GPU with HBM, an SRAM-only design) as `run` loads it, its work estimated, and the
// first and last steps of the first and last tile of every op generated, as the compute units would ask for them.
#include "sim/graph/lowering.h"
#include "sim/graph/work_estimate.h"
#include "sim/graph/workload.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using namespace roofsim;

const std::vector<HardwareParams>& devices() {
  static const std::vector<HardwareParams> loaded = {
      load_hardware(fuzz::source_dir() / "configs" / "H100-SXM5.toml"),
      load_hardware(fuzz::source_dir() / "configs" / "SRAM-LPU.toml"),
  };
  return loaded;
}

void step_through(const TileSource& source, std::uint64_t tile) {
  const std::uint32_t steps = source.steps(tile);
  if (steps == 0) return;
  TileStep step;
  source.step(tile, 0, step);
  source.step(tile, steps - 1, step);
}

void lower_ops(const Workload& workload, const HardwareParams& hardware) {
  (void)estimate_work(workload, hardware);
  for (const auto& op : workload.ops) {
    const auto lowering = lower_op(op, workload.tensors, hardware);
    if (lowering == nullptr || lowering->tiles() == 0) continue;
    step_through(*lowering, 0);
    step_through(*lowering, lowering->tiles() - 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::input_file("workload.toml", data, size);
  fuzz::load_expecting_input_errors(
      [&] { (void)build_workload(file, {}, kTensorAlignmentBytes, fuzz::harness_limits()); });
  for (const auto& hardware : devices()) {
    fuzz::load_expecting_input_errors([&] {
      const Workload workload = load_workload(file, {}, hardware, fuzz::harness_limits());
      lower_ops(workload, hardware);
    });
  }
  return 0;
}
