// The Empirical Roofline Toolkit's kernel (Lo, Williams, Van Straalen, Ligocki, Cordery, Wright, Hall and Oliker,
// "Roofline Model Toolkit: A Practical Tool for Architectural and Program Analysis", PMBS 2014): every thread block
// owns a contiguous slice of the working set and passes over it `ntrials` times; each element is loaded, gets a fixed
// number of FLOPs and is stored back in place. Here a tile is the thread block: the op's one tensor (its input and its
// output) is cut into request-sized chunks, tile t owns chunks [t C / T, (t + 1) C / T), and step i of a tile loads
// chunk i mod slice, computes its elements' FLOPs and stores it. A slice whose data a level keeps is then read from
// that level from the second pass on; one larger than every level streams from below on every pass.
#include <algorithm>

#include <fmt/format.h>

#include "sim/graph/lowering_detail.h"

namespace roofsim::detail {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

class ErtLowering : public OpLowering {
 public:
  ErtLowering(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw) {
    const auto fail = [&](const std::string& what) {
      throw InputError(op.pos, fmt::format("op '{}': {}", op.name, what));
    };
    if (op.inputs.size() != 1 || op.outputs.size() != 1 || op.inputs.front() != op.outputs.front()) {
      fail("the ERT kernel reads and writes one tensor in place (one input, the same as its one output)");
    }
    if (op.inputs.front() >= tensors.size()) fail("names a tensor that does not exist");
    tensor_ = &tensors[op.inputs.front()];
    element_bytes_ = element_bytes(tensor_->dtype);
    elements_ = op.shape.elements > 0 ? op.shape.elements : tensor_->bytes / element_bytes_;
    if (elements_ == 0 || elements_ * element_bytes_ > tensor_->bytes) {
      fail(fmt::format("needs between 1 and {} elements", tensor_->bytes / element_bytes_));
    }
    passes_ = op.shape.ert_passes;
    flops_per_element_ = op.shape.flops_per_element;
    chunk_elements_ = std::max<std::uint64_t>(1, hw.compute.request_bytes / element_bytes_);
    chunks_ = ceil_div(elements_, chunk_elements_);
    // One tile per slot, as ERT launches as many blocks as the device keeps resident.
    const std::uint64_t slots = std::max<std::uint64_t>(1, hw.compute.units * hw.compute.occupancy);
    tiles_ = std::min(slots, chunks_);
    if (passes_ * ceil_div(chunks_, tiles_) > 0xFFFFFFFFULL) fail("has more than 2^32 steps per tile");
    useful_flops_ = elements_ * flops_per_element_ * passes_;
    executed_flops_ = useful_flops_;
    tile_shape_ = {ceil_div(chunks_, tiles_) * chunk_elements_, 1, 0};
    description_ = fmt::format("ert {} passes x {} FLOP/element over {} B", passes_, flops_per_element_,
                               elements_ * element_bytes_);
  }

  [[nodiscard]] std::uint32_t steps(std::uint64_t tile) const override {
    return static_cast<std::uint32_t>(passes_ * slice_chunks(tile));
  }

  void step(std::uint64_t tile, std::uint32_t index, TileStep& out) const override {
    out.clear();
    const std::uint64_t chunk = first_chunk(tile) + index % slice_chunks(tile);
    const std::uint64_t first = chunk * chunk_elements_;
    const std::uint64_t count = std::min(chunk_elements_, elements_ - first);
    const Bytes address = tensor_->address + first * element_bytes_;
    const Bytes bytes = count * element_bytes_;
    const Bytes request = chunk_elements_ * element_bytes_;
    ChunkBuilder(out, out.reads, request, tensor_->resident).add(address, bytes);
    ChunkBuilder(out, out.writes, request).add(address, bytes);
    // The kernel's work: count x flops_per_element, all of it useful (ERT computes exactly its elements).
    out.executed_flops = count * flops_per_element_;
    out.useful_flops = out.executed_flops;
    out.phases[0].flops = out.executed_flops;  // FMAs on the engine the point measures, whichever it is
  }

 private:
  [[nodiscard]] std::uint64_t first_chunk(std::uint64_t tile) const { return tile * chunks_ / tiles_; }
  [[nodiscard]] std::uint64_t slice_chunks(std::uint64_t tile) const {
    return first_chunk(tile + 1) - first_chunk(tile);
  }

  const Tensor* tensor_ = nullptr;
  Bytes element_bytes_ = 1;
  std::uint64_t elements_ = 0, passes_ = 1, flops_per_element_ = 1, chunk_elements_ = 1, chunks_ = 0;
};

}  // namespace

std::unique_ptr<OpLowering> lower_ert(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw) {
  return std::make_unique<ErtLowering>(op, tensors, hw);
}

}  // namespace roofsim::detail
