#pragma once
// Lowering of an op into tiles over the real address ranges of its tensors (DESIGN.md sections 1.6 and 3).
//
// GEMM (and batched GEMM, and conv2d as an implicit GEMM): output tiles tm x tn over (batch, tile row, tile column),
// rasterized along the shorter side of the tile grid; each tile runs ceil(k / tk) k-steps reading an A block
// (tm x tk) and a B block (tk x tn), each contiguous in the operands' tile-blocked layout, and writes its C block after
// the last step. Edge tiles read and write only in-bounds addresses but
// execute a whole tile's FLOPs, so executed_flops >= useful_flops (tile quantization emerges). The k-steps are dealt
// to tiles data-parallel, split-K, stream-K or as a hybrid, whichever a small cost model predicts fastest
// (gemm_decomposition.h); split tiles' partial sums go through an fp32 workspace and their traffic is counted like
// any other.
// Element-wise ops stream blocks of elements; row ops (reduction, softmax, norms) stream blocks of whole rows.
// Attention (lowering_attention.cpp) and the embedding gather (lowering_gather.cpp) have their own files.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/kernel/tile.h"
#include "models/kernel/tile_source.h"
#include "sim/config/hardware_params.h"
#include "sim/graph/hardware_check.h"
#include "sim/graph/op.h"

namespace roofsim {

// The lowering of one op is the tile source its compute units run (models/kernel/tile_source.h); the lowerings of
// each op kind derive from it and fill its totals.
class OpLowering : public TileSource {
 public:
  [[nodiscard]] std::uint64_t tiles() const final { return tiles_; }
  [[nodiscard]] Flops executed_flops() const final { return executed_flops_; }
  [[nodiscard]] Flops useful_flops() const final { return useful_flops_; }
  [[nodiscard]] const TileShape& tile_shape() const final { return tile_shape_; }
  [[nodiscard]] Bytes partial_sum_bytes() const final { return partial_sum_bytes_; }
  [[nodiscard]] const std::string& description() const final { return description_; }

 protected:
  std::uint64_t tiles_ = 0;
  Flops executed_flops_ = 0;
  Flops useful_flops_ = 0;
  TileShape tile_shape_;
  Bytes partial_sum_bytes_ = 0;
  std::string description_;
};

// The GEMM tile of an op: the op's own, else the hardware file's default (each side cut to the problem's extent
// rounded up to a power of two, at least 16, as a library picks a narrower kernel for a skinny GEMM), else the
// largest power-of-two tile whose double-buffered A and B chunks fit the local SRAM. Throws InputError when an
// explicit tile does not fit.
[[nodiscard]] TileShape choose_gemm_tile(const Op& op, const HardwareParams& hw);

// SRAM a unit may stage tiles in: the first unit-scope level, else an equal share of the first device-scope level,
// else 0 (no limit).
[[nodiscard]] Bytes local_sram_bytes(const HardwareParams& hw);

// How many k-steps a tile keeps loaded or loading (CUTLASS's "stages") when a step reads `step_reads` chunks of
// `step_bytes` in all: as many as the unit's outstanding requests and its slot's share of the local SRAM hold, at
// least 2 (double buffering) and at most 64. A unit with few tiles (a TPU core) then keeps its request limit busy,
// while a GPU SM's two resident GEMM tiles stay at 2 stages.
inline constexpr std::uint32_t kMinPipelineStages = 2, kMaxPipelineStages = 64;
[[nodiscard]] std::uint32_t pipeline_stages(std::size_t step_reads, Bytes step_bytes, const HardwareParams& hw);

// The lowering of one op; nullptr for collectives (not simulated on a single device). Throws InputError when the
// op's tensors do not match its shape.
[[nodiscard]] std::unique_ptr<OpLowering> lower_op(const Op& op, const std::vector<Tensor>& tensors,
                                                   const HardwareParams& hw);

}  // namespace roofsim
