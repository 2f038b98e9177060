#include "sim/graph/lowering.h"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>

#include "sim/graph/counting.h"
#include "sim/graph/gemm_decomposition.h"
#include "sim/graph/lowering_detail.h"

namespace roofsim {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

const Tensor& tensor_at(const Op& op, const std::vector<Tensor>& tensors, std::size_t index) {
  if (index >= tensors.size())
    throw InputError(op.pos, fmt::format("op '{}' names tensor #{} that does not exist", op.name, index));
  return tensors[index];
}

void require(const Op& op, bool condition, const std::string& what) {
  if (!condition) throw InputError(op.pos, fmt::format("op '{}': {}", op.name, what));
}

// Element count of a tensor (its bytes over its element size: shapes may be given either way).
std::uint64_t elements_of(const Tensor& tensor) {
  return tensor.bytes / element_bytes(tensor.dtype);
}

// Elements a streaming tile covers: as many requests of the op's element size as the unit could stage in its local
// SRAM double-buffered (16 without a local SRAM), but no more than fill the device's slots evenly (as a kernel sizes
// its grid to the device). A unit with much SRAM and few slots (a TPU core) then streams long tiles without a
// pipeline bubble every few requests. Whole requests, so that each step reads one chunk per operand.
std::uint64_t stream_tile_elements(const Op& op, const HardwareParams& hw, std::uint64_t step_elements,
                                   std::uint64_t operands, std::uint64_t elements) {
  if (op.tile) return std::max<std::uint64_t>(step_elements, op.tile->m * std::max<std::uint64_t>(op.tile->n, 1));
  constexpr std::uint64_t kStepsWithoutSram = 16;
  std::uint64_t steps = kStepsWithoutSram;
  const Bytes local = local_sram_bytes(hw);
  const Bytes step_bytes = step_elements * element_bytes(op.dtype) * std::max<std::uint64_t>(operands, 1);
  if (local > 0) steps = std::max<std::uint64_t>(1, local / (2 * step_bytes));
  const std::uint64_t slots = std::max<std::uint64_t>(1, hw.compute.units * hw.compute.occupancy);
  const std::uint64_t steps_to_fill = ceil_div(ceil_div(elements, slots), step_elements);
  return std::clamp<std::uint64_t>(steps_to_fill, 1, steps) * step_elements;
}

// Adds elements [first, first + count) of `tensor` to `chunks`, wrapping modulo the tensor's size (a broadcast
// operand smaller than the op is re-read from its start).
void add_elements(ChunkBuilder& chunks, const Tensor& tensor, std::uint64_t first, std::uint64_t count) {
  const std::uint64_t total = elements_of(tensor);
  if (total == 0) return;
  const Bytes e = element_bytes(tensor.dtype);
  while (count > 0) {
    const std::uint64_t at = first % total;
    const std::uint64_t take = std::min(count, total - at);
    chunks.add(tensor.address + at * e, take * e);
    first += take;
    count -= take;
  }
}

// Bytes of one partial sum: the fp32 accumulator (fp64 for fp64 GEMMs).
Bytes partial_sum_element_bytes(DataType dtype) {
  return std::max<Bytes>(element_bytes(dtype), 4);
}

// ---------------------------------------------------------------------------------------------------------------
// GEMM: C[b] = A[b] x B[b] with A (m x k), B (k x n), C (m x n); B may be shared by the batch (weights). The
// operands are tile-blocked: each tile-row block of A holds its k-blocks one after another, each a contiguous rows x
// depth block (and likewise B's k-blocks hold their column blocks, C's tile-row blocks their column blocks), the
// layout of pre-packed weights and of the tensor-memory-accelerator's boxes as the memory system sees them. A k-step's
// operand block is then a few contiguous chunks (DESIGN.md section 1.5) rather than one strided row per cache line:
// the blocks still cover each tensor exactly once, so reuse across tiles and ops is unchanged, and the engine's work
// per step does not grow with the tile's rows.
// Tiles are rasterized as CUTLASS's Hopper tile scheduler does by default: along m (tile rows fastest) when the
// output has more tile columns than tile rows, else along n. A wave of tiles then shares the long dimension's operand
// panels in the L2 instead of streaming all of them once per few tile rows: the GPT-3 block's qkv GEMM (16 x 144
// tiles) read its 0.9 GB of weights from DRAM about once rather than nine times.
// Tile t runs the op's k-steps [first(t), first(t + 1)) in output-tile order (output tile o owns k-steps
// [o K, (o + 1) K)), as the decomposition deals them (gemm_decomposition.h): the stream-K tiles first, each a segment
// of one or more output tiles, then one whole output tile per data-parallel tile. As in the paper's fix-up, a segment
// that ends inside its output tile writes its fp32 partial sums to the tile's own slot of a workspace, and the segment
// that ends the output tile reads the slots of the tiles before it, adds them and writes C. The bytes are counted; the
// wait for the slots is not, and a tile runs its segments last first so that the slots it reads are usually written
// by then. The workspace (one tile of partial sums per stream-K tile) sits after the workload's tensors, as a
// library's workspace buffer sits outside the model's tensors.
class GemmLowering : public OpLowering {
 public:
  GemmLowering(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw, bool conv)
      : request_bytes_(hw.compute.request_bytes) {
    require(op, op.inputs.size() >= 2 && !op.outputs.empty(), "needs inputs A and B and an output C");
    a_ = &tensor_at(op, tensors, op.inputs[0]);
    b_ = &tensor_at(op, tensors, op.inputs[1]);
    c_ = &tensor_at(op, tensors, op.outputs[0]);
    const auto& s = op.shape;
    batch_ = std::max<std::uint64_t>(s.batch, 1);
    tile_shape_ = choose_gemm_tile(op, hw);
    if (conv) {
      conv_ = true;
      require(op, s.channels > 0 && s.height > 0 && s.width > 0 && s.filters > 0 && s.kernel_h > 0 && s.kernel_w > 0,
              "conv2d needs channels, height, width, filters, kernel_h and kernel_w");
      const std::uint64_t stride = std::max<std::uint64_t>(s.stride, 1);
      require(op, s.height + 2 * s.padding >= s.kernel_h && s.width + 2 * s.padding >= s.kernel_w,
              "the kernel is larger than the padded input");
      out_h_ = (s.height + 2 * s.padding - s.kernel_h) / stride + 1;
      out_w_ = (s.width + 2 * s.padding - s.kernel_w) / stride + 1;
      images_ = batch_;
      batch_ = 1;
      m_ = images_ * out_h_ * out_w_;
      n_ = s.filters;
      rs_ = s.kernel_h * s.kernel_w;
      k_ = s.channels * rs_;
      // A k-step covers whole channels (all r, s), so that it reads whole input rows.
      channels_per_step_ = std::max<std::uint64_t>(1, tile_shape_.k / rs_);
      tile_shape_.k = channels_per_step_ * rs_;
      k_steps_ = ceil_div(s.channels, channels_per_step_);
      stride_ = stride;
      shape_ = s;
    } else {
      m_ = s.m;
      n_ = s.n;
      k_ = s.k;
      require(op, m_ > 0 && n_ > 0 && k_ > 0, "needs m, n and k above 0");
      k_steps_ = ceil_div(k_, tile_shape_.k);
      const Bytes eb = element_bytes(b_->dtype);
      require(op, a_->bytes >= batch_ * m_ * k_ * element_bytes(a_->dtype), "input A is smaller than batch x m x k");
      require(op, b_->bytes >= k_ * n_ * eb, "input B is smaller than k x n");
      b_batched_ = b_->bytes >= batch_ * k_ * n_ * eb && batch_ > 1;
      require(op, c_->bytes >= batch_ * m_ * n_ * element_bytes(c_->dtype), "output C is smaller than batch x m x n");
    }
    tiles_m_ = ceil_div(m_, tile_shape_.m);
    tiles_n_ = ceil_div(n_, tile_shape_.n);
    along_m_ = tiles_n_ > tiles_m_;
    output_tiles_ = batch_ * tiles_m_ * tiles_n_;
    iterations_ = output_tiles_ * k_steps_;
    partial_bytes_ = partial_sum_element_bytes(op.dtype);
    // Implicit GEMMs run data-parallel: their k-steps walk input channels, whose partial sums this lowering does not
    // split.
    decomposition_ = conv_ ? GemmDecomposition{GemmDecompositionKind::data_parallel, 0, 0, output_tiles_}
                           : choose_decomposition(op, hw);
    sk_tiles_ = decomposition_.stream_k_tiles;
    sk_iterations_ = decomposition_.stream_k_output_tiles * k_steps_;
    tiles_ = decomposition_.tiles();
    stream_k_ = sk_tiles_ > 0;
    executed_flops_ = iterations_ * 2 * tile_shape_.m * tile_shape_.n * tile_shape_.k;
    useful_flops_ = 2 * batch_ * m_ * n_ * k_;
    description_ =
        fmt::format("{} tile {}x{}x{}", conv ? "implicit-gemm" : "gemm", tile_shape_.m, tile_shape_.n, tile_shape_.k);
    if (conv_) return;
    description_ += decomposition_description();
    if (stream_k_) {
      Bytes end = 0;
      for (const auto& tensor : tensors) end = std::max(end, tensor.address + tensor.bytes);
      constexpr Bytes kWorkspaceAlignment = 4096;
      workspace_address_ = ceil_div(end, kWorkspaceAlignment) * kWorkspaceAlignment;
      // Each segment that does not end its output tile writes that tile's partial sums (and the next reads them).
      for (std::uint64_t tile = 0; tile < sk_tiles_; ++tile) {
        const std::uint64_t end_step = first_step(tile + 1);
        for (std::uint64_t o = first_step(tile) / k_steps_; o * k_steps_ < end_step; ++o) {
          if (end_step >= (o + 1) * k_steps_) continue;
          const auto [ti, tj] = tile_position(o % (tiles_m_ * tiles_n_));
          const std::uint64_t i0 = ti * tile_shape_.m, j0 = tj * tile_shape_.n;
          partial_sum_bytes_ +=
              (std::min(m_, i0 + tile_shape_.m) - i0) * (std::min(n_, j0 + tile_shape_.n) - j0) * partial_bytes_;
        }
      }
    }
  }

  [[nodiscard]] std::uint32_t steps(std::uint64_t tile) const override {
    return static_cast<std::uint32_t>(first_step(tile + 1) - first_step(tile));
  }

  void step(std::uint64_t tile, std::uint32_t index, TileStep& out) const override {
    out.clear();
    const std::uint64_t global = stream_k_ ? global_step(tile, index) : first_step(tile) + index;
    const std::uint64_t output_tile = global / k_steps_;
    const std::uint64_t k_step = global % k_steps_;
    const std::uint64_t b = output_tile / (tiles_m_ * tiles_n_);
    const auto [ti, tj] = tile_position(output_tile % (tiles_m_ * tiles_n_));
    const std::uint64_t i0 = ti * tile_shape_.m;
    const std::uint64_t j0 = tj * tile_shape_.n;
    const std::uint64_t i1 = std::min(m_, i0 + tile_shape_.m);
    const std::uint64_t j1 = std::min(n_, j0 + tile_shape_.n);
    out.executed_flops = 2 * tile_shape_.m * tile_shape_.n * tile_shape_.k;
    out.phases[0].flops = out.executed_flops;
    if (conv_) {
      conv_step(i0, i1, j0, j1, index, out);
      return;
    }
    const std::uint64_t k0 = k_step * tile_shape_.k;
    const std::uint64_t k1 = std::min(k_, k0 + tile_shape_.k);
    const std::uint64_t rows = i1 - i0, cols = j1 - j0, depth = k1 - k0;
    out.useful_flops = 2 * rows * cols * depth;
    const Bytes ea = element_bytes(a_->dtype), eb = element_bytes(b_->dtype), ec = element_bytes(c_->dtype);
    // Each block is contiguous in the tile-blocked layout: the block row's earlier k-blocks (or the k-block's earlier
    // column blocks) come before it.
    ChunkBuilder(out, out.reads, request_bytes_, a_->resident)
        .add(a_->address + ((b * m_ + i0) * k_ + rows * k0) * ea, rows * depth * ea);
    const std::uint64_t bb = b_batched_ ? b : 0;
    ChunkBuilder(out, out.reads, request_bytes_, b_->resident)
        .add(b_->address + ((bb * k_ + k0) * n_ + depth * j0) * eb, depth * cols * eb);
    const bool ends_output_tile = k_step + 1 == k_steps_;
    const bool ends_segment = ends_output_tile || global + 1 == first_step(tile + 1);
    if (!ends_segment) return;
    if (stream_k_) {
      // The tile's last segment leaves its partial sums in its own workspace slot if it does not end its output
      // tile; the segment that ends the output tile reads the slots of the tiles that ran its earlier k-steps.
      const Bytes block = rows * cols * partial_bytes_;
      if (!ends_output_tile) {
        ChunkBuilder(out, out.writes, request_bytes_).add(slot_address(tile), block);
        return;
      }
      ChunkBuilder partials(out, out.reads, request_bytes_);
      for (std::uint64_t t = tile_of(output_tile * k_steps_); t < tile; ++t) partials.add(slot_address(t), block);
    }
    ChunkBuilder(out, out.writes, request_bytes_)
        .add(c_->address + ((b * m_ + i0) * n_ + rows * j0) * ec, rows * cols * ec);
  }

 private:
  // Tile row and column of the `within`-th output tile of a batch entry, in raster order.
  [[nodiscard]] std::array<std::uint64_t, 2> tile_position(std::uint64_t within) const {
    if (along_m_) return {within % tiles_m_, within / tiles_m_};
    return {within / tiles_n_, within % tiles_n_};
  }

  // The decomposition with the lowest predicted time (gemm_decomposition.h), of the op's kind if it names one.
  [[nodiscard]] GemmDecomposition choose_decomposition(const Op& op, const HardwareParams& hw) const {
    const Bytes a_bytes = batch_ * m_ * k_ * element_bytes(a_->dtype);
    const Bytes b_bytes = k_ * n_ * element_bytes(b_->dtype);
    GemmWork work;
    work.output_tiles = output_tiles_;
    work.k_steps = k_steps_;
    work.step_flops = 2 * tile_shape_.m * tile_shape_.n * tile_shape_.k;
    // A's blocks are read once per tile column, B's once per tile row of each batch entry.
    work.streamed_bytes = tiles_n_ * a_bytes + batch_ * tiles_m_ * b_bytes;
    work.output_bytes = batch_ * m_ * n_ * element_bytes(c_->dtype);
    work.operand_bytes = a_bytes + (b_batched_ ? batch_ : 1) * b_bytes + work.output_bytes;
    work.partial_tile_bytes = std::min(m_, tile_shape_.m) * std::min(n_, tile_shape_.n) * partial_bytes_;
    // A k-step of the first output tile: its A and B blocks, each contiguous, in chunks of request_bytes.
    const std::uint64_t depth = std::min(k_, tile_shape_.k);
    const Bytes a_block = std::min(m_, tile_shape_.m) * depth * element_bytes(a_->dtype);
    const Bytes b_block = depth * std::min(n_, tile_shape_.n) * element_bytes(b_->dtype);
    work.stages =
        pipeline_stages(ceil_div(a_block, request_bytes_) + ceil_div(b_block, request_bytes_), a_block + b_block, hw);
    return choose_gemm_decomposition(work, GemmMachine::of(hw, op_engine(op, hw.compute), op.dtype), op.decomposition);
  }

  // " stream-k 108", " split-k 2", " stream-k 108 + data-parallel 324", or nothing for data-parallel.
  [[nodiscard]] std::string decomposition_description() const {
    const auto& d = decomposition_;
    switch (d.kind) {
      case GemmDecompositionKind::data_parallel: return "";
      case GemmDecompositionKind::split_k:
        return fmt::format(" split-k {}", d.stream_k_tiles / std::max<std::uint64_t>(d.stream_k_output_tiles, 1));
      case GemmDecompositionKind::stream_k: return fmt::format(" stream-k {}", d.stream_k_tiles);
      case GemmDecompositionKind::hybrid:
        return fmt::format(" stream-k {} + data-parallel {}", d.stream_k_tiles, d.data_parallel_tiles);
    }
    return "";
  }

  // The op's k-steps before tile `tile`: an even share of the stream-K region's, then whole output tiles.
  [[nodiscard]] std::uint64_t first_step(std::uint64_t tile) const {
    if (tile <= sk_tiles_) return sk_tiles_ == 0 ? 0 : tile * sk_iterations_ / sk_tiles_;
    return sk_iterations_ + (tile - sk_tiles_) * k_steps_;
  }

  // The op's k-step that step `index` of tile `tile` runs. A tile runs its segments from its last output tile back to
  // its first (each segment's k-steps in order), as CUTLASS's stream-K blocks do: the segment that ends inside its
  // output tile and leaves partial sums comes first, and the one that ends an output tile and reads its peers'
  // partials last, so that the peers (earlier tiles, which ran their leaving segment first) have written them.
  [[nodiscard]] std::uint64_t global_step(std::uint64_t tile, std::uint64_t index) const {
    const std::uint64_t begin = first_step(tile), end = first_step(tile + 1);
    const std::uint64_t last_start = std::max(begin, (end - 1) / k_steps_ * k_steps_);
    if (index < end - last_start) return last_start + index;
    // Whole output tiles before the last one, from the back; the first may start mid-tile at `begin`.
    const std::uint64_t rest = index - (end - last_start);
    const std::uint64_t output_tile = last_start / k_steps_ - 1 - rest / k_steps_;
    return std::max(begin, output_tile * k_steps_) + rest % k_steps_;
  }

  // The tile that runs the op's k-step `global`.
  [[nodiscard]] std::uint64_t tile_of(std::uint64_t global) const {
    if (global >= sk_iterations_) return sk_tiles_ + (global - sk_iterations_) / k_steps_;
    // The largest t with t I / S <= global.
    return ceil_div((global + 1) * sk_tiles_, sk_iterations_) - 1;
  }

  // Tile `tile`'s slot in the stream-K workspace: one whole tile of partial sums, contiguous.
  [[nodiscard]] Bytes slot_address(std::uint64_t tile) const {
    return workspace_address_ + tile * std::min(m_, tile_shape_.m) * std::min(n_, tile_shape_.n) * partial_bytes_;
  }

  // Implicit GEMM over NCHW input, KCRS filters and NKPQ output: a tile's rows are output pixels, its k-steps
  // whole input channels. The A chunk is the input footprint of the tile's pixels (whole input rows, with the
  // halo), which is what an implicit-GEMM kernel loads, not the im2col matrix.
  void conv_step(std::uint64_t i0, std::uint64_t i1, std::uint64_t j0, std::uint64_t j1, std::uint32_t index,
                 TileStep& out) const {
    const std::uint64_t c0 = static_cast<std::uint64_t>(index) * channels_per_step_;
    const std::uint64_t c1 = std::min(shape_.channels, c0 + channels_per_step_);
    out.useful_flops = 2 * (i1 - i0) * (j1 - j0) * (c1 - c0) * rs_;
    const Bytes ea = element_bytes(a_->dtype), eb = element_bytes(b_->dtype), ec = element_bytes(c_->dtype);
    const std::uint64_t pixels = out_h_ * out_w_;
    const std::uint64_t H = shape_.height, W = shape_.width, C = shape_.channels, K = shape_.filters;
    {
      ChunkBuilder chunks(out, out.reads, request_bytes_, a_->resident);
      for (std::uint64_t image = i0 / pixels; image * pixels < i1; ++image) {
        const std::uint64_t p_lo = (std::max(i0, image * pixels) - image * pixels) / out_w_;
        const std::uint64_t p_hi = (std::min(i1, (image + 1) * pixels) - 1 - image * pixels) / out_w_;
        const std::uint64_t top = p_lo * stride_;
        const std::uint64_t h_lo = top > shape_.padding ? top - shape_.padding : 0;
        const std::uint64_t bottom = p_hi * stride_ + shape_.kernel_h - 1;  // in padded coordinates
        if (bottom < shape_.padding) continue;
        const std::uint64_t h_hi = std::min(H - 1, bottom - shape_.padding);
        if (h_hi < h_lo) continue;
        for (std::uint64_t c = c0; c < c1; ++c) {
          chunks.add(a_->address + (((image * C + c) * H + h_lo) * W) * ea, (h_hi - h_lo + 1) * W * ea);
        }
      }
    }
    {
      ChunkBuilder chunks(out, out.reads, request_bytes_, b_->resident);
      for (std::uint64_t f = j0; f < j1; ++f) chunks.add(b_->address + (f * C + c0) * rs_ * eb, (c1 - c0) * rs_ * eb);
    }
    if (index + 1 == k_steps_) {
      ChunkBuilder chunks(out, out.writes, request_bytes_);
      for (std::uint64_t image = i0 / pixels; image * pixels < i1; ++image) {
        const std::uint64_t lo = std::max(i0, image * pixels) - image * pixels;
        const std::uint64_t hi = std::min(i1, (image + 1) * pixels) - image * pixels;
        for (std::uint64_t f = j0; f < j1; ++f) {
          chunks.add(c_->address + ((image * K + f) * pixels + lo) * ec, (hi - lo) * ec);
        }
      }
    }
  }

  Bytes request_bytes_;
  const Tensor* a_ = nullptr;
  const Tensor* b_ = nullptr;
  const Tensor* c_ = nullptr;
  std::uint64_t batch_ = 1, m_ = 0, n_ = 0, k_ = 0, k_steps_ = 0, tiles_m_ = 0, tiles_n_ = 0, output_tiles_ = 0;
  std::uint64_t iterations_ = 0;  // k-steps over all output tiles
  GemmDecomposition decomposition_{GemmDecompositionKind::data_parallel, 0, 0, 0};
  bool stream_k_ = false;            // some tiles share output tiles' k-steps
  std::uint64_t sk_tiles_ = 0;       // the tiles that do, first in dispatch order
  std::uint64_t sk_iterations_ = 0;  // the k-steps they share: those of the first output tiles
  bool along_m_ = false;             // raster order: tile rows fastest (else tile columns fastest)
  Bytes workspace_address_ = 0, partial_bytes_ = 0;
  bool b_batched_ = false;
  bool conv_ = false;
  OpShape shape_;
  std::uint64_t images_ = 0, out_h_ = 0, out_w_ = 0, rs_ = 1, channels_per_step_ = 1, stride_ = 1;
};

// ---------------------------------------------------------------------------------------------------------------
// Streams over the elements (element-wise) or rows (reduction, softmax, norms) of an op. Inputs of the op's full
// size are streamed in step with the output; smaller inputs are broadcast (element-wise) or read whole at a tile's
// first step (a norm's weights).
class StreamLowering : public OpLowering {
 public:
  StreamLowering(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw) {
    const auto& s = op.shape;
    rows_mode_ = op.kind != OpKind::elementwise;
    for (const auto index : op.inputs) inputs_.push_back(&tensor_at(op, tensors, index));
    for (const auto index : op.outputs) outputs_.push_back(&tensor_at(op, tensors, index));
    require(op, !inputs_.empty() && !outputs_.empty(), "needs at least one input and one output");
    if (rows_mode_) {
      rows_ = s.rows;
      cols_ = s.cols;
      require(op, rows_ > 0 && cols_ > 0, "needs rows and cols above 0");
      elements_ = rows_ * cols_;
    } else {
      elements_ = s.elements > 0 ? s.elements : elements_of(*outputs_.front());
      require(op, elements_ > 0, "needs elements above 0");
    }
    reduce_ = op.kind == OpKind::reduction;
    work_ = element_work(op);
    step_elements_ = std::max<Bytes>(1, hw.compute.request_bytes / element_bytes(op.dtype));
    const std::uint64_t tile_elements =
        stream_tile_elements(op, hw, step_elements_, inputs_.size() + (reduce_ ? 0 : outputs_.size()), elements_);
    rows_per_tile_ = rows_mode_ ? std::max<std::uint64_t>(1, tile_elements / cols_) : 0;
    tile_elements_ = rows_mode_ ? rows_per_tile_ * cols_ : tile_elements;
    tiles_ = ceil_div(elements_, tile_elements_);
    // FLOPs per element: the shape's, or more when the graph counted more (so executed >= useful always).
    flops_per_element_ = std::max<std::uint64_t>(s.flops_per_element, ceil_div(op.useful_flops, elements_));
    useful_flops_ = op.useful_flops > 0 ? op.useful_flops : elements_ * flops_per_element_;
    const std::uint64_t full_tiles = elements_ / tile_elements_;
    const std::uint64_t total_steps = full_tiles * ceil_div(tile_elements_, step_elements_) +
                                      ceil_div(elements_ - full_tiles * tile_elements_, step_elements_);
    executed_flops_ = total_steps * step_elements_ * flops_per_element_;
    tile_shape_ = {rows_mode_ ? rows_per_tile_ : tile_elements_, rows_mode_ ? cols_ : 1, 0};
    description_ = rows_mode_ ? fmt::format("rows tile {}x{}", rows_per_tile_, cols_)
                              : fmt::format("stream tile {} elements", tile_elements_);
  }

  [[nodiscard]] std::uint32_t steps(std::uint64_t tile) const override {
    const std::uint64_t first = tile * tile_elements_;
    return static_cast<std::uint32_t>(ceil_div(std::min(tile_elements_, elements_ - first), step_elements_));
  }

  void step(std::uint64_t tile, std::uint32_t index, TileStep& out) const override {
    out.clear();
    const std::uint64_t tile_first = tile * tile_elements_;
    const std::uint64_t tile_end = std::min(elements_, tile_first + tile_elements_);
    const std::uint64_t first = tile_first + static_cast<std::uint64_t>(index) * step_elements_;
    const std::uint64_t count = std::min(step_elements_, tile_end - first);
    out.executed_flops = step_elements_ * flops_per_element_;
    out.useful_flops = count * flops_per_element_;
    // The vector and special-function work of the step's elements, and of the rows that end in it.
    PhaseWork& work = out.phases[0];
    const PhaseWork& e = work_.per_element;
    work.vector_fma = e.vector_fma * count;
    work.vector_alu = e.vector_alu * count;
    work.exp2 = e.exp2 * count;
    work.reciprocal = e.reciprocal * count;
    work.rsqrt = e.rsqrt * count;
    if (rows_mode_) {
      const std::uint64_t rows = (first + count) / cols_ - first / cols_;
      work.reciprocal += work_.per_row.reciprocal * rows;
      work.rsqrt += work_.per_row.rsqrt * rows;
    }
    for (const auto* input : inputs_) {
      ChunkBuilder chunks(out, out.reads, request_bytes_of(*input), input->resident);
      if (!rows_mode_ || elements_of(*input) >= elements_) {
        add_elements(chunks, *input, first, count);
      } else if (index == 0) {
        add_elements(chunks, *input, 0, elements_of(*input));
      }
    }
    const bool last = first + count == tile_end;
    for (const auto* output : outputs_) {
      ChunkBuilder chunks(out, out.writes, request_bytes_of(*output));
      if (!reduce_) {
        add_elements(chunks, *output, first, count);
      } else if (last) {
        add_elements(chunks, *output, tile_first / cols_, (tile_end - tile_first) / cols_);
      }
    }
  }

 private:
  [[nodiscard]] Bytes request_bytes_of(const Tensor& tensor) const {
    return step_elements_ * element_bytes(tensor.dtype);
  }

  std::vector<const Tensor*> inputs_, outputs_;
  bool rows_mode_ = false, reduce_ = false;
  std::uint64_t rows_ = 0, cols_ = 0, elements_ = 0, step_elements_ = 1, tile_elements_ = 1, rows_per_tile_ = 0;
  std::uint64_t flops_per_element_ = 1;
  ElementWork work_;
};

}  // namespace

Bytes local_sram_bytes(const HardwareParams& hw) {
  if (const auto* local = hw.local_level()) return local->capacity_bytes;
  if (!hw.levels.empty()) return hw.levels.front().capacity_bytes / std::max<std::uint64_t>(hw.compute.units, 1);
  return 0;
}

std::uint32_t pipeline_stages(std::size_t step_reads, Bytes step_bytes, const HardwareParams& hw) {
  const std::uint64_t occupancy = std::max<std::uint64_t>(hw.compute.occupancy, 1);
  std::uint64_t stages = kMaxPipelineStages;
  // The request limit is the unit's, shared by its slots as they need it (one slot ramping down lets another use
  // more); the SRAM is split between the resident tiles.
  if (step_reads > 0) stages = std::min<std::uint64_t>(stages, hw.compute.outstanding_requests / step_reads);
  const Bytes local = local_sram_bytes(hw);
  if (local > 0 && step_bytes > 0) stages = std::min<std::uint64_t>(stages, local / occupancy / step_bytes);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(stages, kMinPipelineStages, kMaxPipelineStages));
}

TileShape choose_gemm_tile(const Op& op, const HardwareParams& hw) {
  const Bytes e = element_bytes(op.dtype);
  const Bytes local = local_sram_bytes(hw);
  const auto staged_bytes = [e](const TileShape& t) { return 2 * (t.m * t.k + t.k * t.n) * e; };
  if (op.tile) {
    if (op.tile->m == 0 || op.tile->n == 0 || op.tile->k == 0) {
      throw InputError(op.pos, fmt::format("op '{}': a tile needs m, n and k above 0", op.name));
    }
    if (local > 0 && staged_bytes(*op.tile) > local) {
      throw InputError(
          op.pos, fmt::format("op '{}': tile {}x{}x{} needs {} B double-buffered, the local SRAM holds {} B", op.name,
                              op.tile->m, op.tile->n, op.tile->k, staged_bytes(*op.tile), local));
    }
    return *op.tile;
  }
  // The problem's extent rounded up to a power of two, from the 16 of an MMA instruction up to `limit`.
  const auto cap = [](std::uint64_t extent, std::uint64_t limit) {
    std::uint64_t p = 16;
    while (p < extent && p < limit) p *= 2;
    return std::min(p, limit);
  };
  const bool conv = op.kind == OpKind::conv2d;
  if (hw.compute.default_tile) {
    // A decode GEMM of 8 tokens runs a kernel 16 rows tall, not the device's 128 (conv2d's m and n are not in the
    // shape's m and n, and its tiles stay the device's).
    TileShape tile = *hw.compute.default_tile;
    if (!conv) {
      tile.m = cap(op.shape.m, tile.m);
      tile.n = cap(op.shape.n, tile.n);
    }
    // A tile sized for 16-bit operands may not fit double-buffered at 32 or 64 bits: halve the k-step, then the
    // wider side, as a library picks a smaller kernel for a wider type.
    while (local > 0 && staged_bytes(tile) > local) {
      if (tile.k > kMinimalGemmTile) {
        tile.k /= 2;
      } else if (tile.m >= tile.n && tile.m > kMinimalGemmTile) {
        tile.m /= 2;
      } else if (tile.n > kMinimalGemmTile) {
        tile.n /= 2;
      } else {
        break;
      }
    }
    return tile;
  }
  // No tile given: the largest power-of-two tile that fits (largest output tile first, then the deepest k-step),
  // not wider than the problem rounded up to a power of two.
  const std::uint64_t max_m = cap(op.shape.m, 256), max_n = cap(op.shape.n, 256);
  TileShape best{16, 16, 16};
  for (const std::uint64_t tm : {256, 128, 64, 32, 16}) {
    for (const std::uint64_t tn : {256, 128, 64, 32, 16}) {
      for (const std::uint64_t tk : {128, 64, 32, 16}) {
        const TileShape candidate{std::min(tm, max_m), std::min(tn, max_n), tk};
        if (local > 0 && staged_bytes(candidate) > local) continue;
        const auto area = candidate.m * candidate.n, best_area = best.m * best.n;
        if (area > best_area || (area == best_area && candidate.k > best.k)) best = candidate;
      }
    }
  }
  return best;
}

std::unique_ptr<OpLowering> lower_op(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw) {
  switch (op.kind) {
    case OpKind::gemm: return std::make_unique<GemmLowering>(op, tensors, hw, false);
    case OpKind::conv2d: return std::make_unique<GemmLowering>(op, tensors, hw, true);
    case OpKind::elementwise:
    case OpKind::reduction:
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::rmsnorm: return std::make_unique<StreamLowering>(op, tensors, hw);
    case OpKind::attention: return detail::lower_attention(op, tensors, hw);
    case OpKind::embedding: return detail::lower_embedding(op, tensors, hw);
    case OpKind::allreduce:
    case OpKind::allgather:
    case OpKind::reducescatter:
    case OpKind::alltoall:
    case OpKind::broadcast:
    case OpKind::sendrecv: return nullptr;
  }
  return nullptr;
}

}  // namespace roofsim
