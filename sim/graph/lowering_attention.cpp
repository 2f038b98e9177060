// Attention lowering. Tiles are blocks of query rows of one KV head group: a tile's rows are the
// (head, query position) pairs of the group's heads, head-major, so grouped-query heads that share a KV head read
// its K and V once per block (as FlashAttention-2's GQA kernels do) and a decode step (one query per sequence) puts
// all heads of a group in one tile.
//
// Layouts are head-major, [batch, head, position, head_dim], for Q, K, V (separate, in a KV cache, or the heads of a
// fused qkv tensor: [batch, heads + 2 kv_heads, seq, head_dim]) and for O, as FlashInfer's HND layout and the
// Hugging Face KV cache keep them: a block of keys of one head is one contiguous range (a few chunks), not one
// 2 head_dim-byte row per key.
//
// flash (Dao et al., "FlashAttention", NeurIPS 2022; Dao, "FlashAttention-2", 2023): per query block, a loop over key
// blocks; a step reads one K block and one V block (the Q block with the first step), computes S = Q K^T, the online
// softmax and P V on chip, and the last step writes the O block. When the query blocks are too few to fill the device
// (decode), the key range is split across tiles as flash-decoding does (Dao, Haziza, Massa and Sizov, "Flash-Decoding
// for long-context inference", 2023). As FlashAttention-2's split-KV path does (csrc/flash_attn/flash_api.cpp,
// set_params_splitkv: out_accum [splits, batch, heads, seq_q, d] and softmax_lse_accum [splits, batch, heads, seq_q],
// both fp32), each split writes its partial O rows (normalized by its own sum) and each row's log-sum-exp in fp32 to
// its own slot of a workspace; then combine tiles of a few output rows each (its combine_attn_seqk_parallel kernel)
// read every split's log-sum-exps and partial rows, weigh each split by exp(lse_split - lse_total) and write O. The
// workspace sits after the workload's tensors, as a library's workspace buffer sits outside the model's tensors (the
// stream-K GEMM's does the same, lowering.cpp). The combine tiles come after all split tiles in dispatch order; that
// they wait for their splits is not modelled (nor is it for the stream-K fix-up), and they run in the same op rather
// than a second launch. Without a split (prefill) the last step writes O directly and there is no workspace. The
// roofline counts the op's compulsory bytes (Q, K, V, O), not the workspace's, as it leaves out the stream-K partial
// sums: the workspace's traffic is in the simulated bytes, and the combine tiles, which run on a few units after the
// splits, show in the gap as tail.
//
// naive (the unfused PyTorch sequence S = Q K^T; P = softmax(S); O = P V): three phases per query block over the key
// blocks. Phase 1 writes S blocks to the op's scratch tensor, phase 2 reads them and writes P in place, phase 3
// reads P with the V blocks. The score matrix thus crosses the memory hierarchy four times (two writes, two reads).
//
// Causal masking: a tile runs the key blocks up to the last key any of its rows sees, so fully masked blocks are
// skipped; a block on the diagonal is computed whole (executed > useful), as FlashAttention-2's causal kernel does.
//
// Work per engine. A flash step runs three phases: S = Q K^T (matrix), the online softmax of the Br x Bc scores
// (vector and special-function engines, which run side by side), and P V (matrix); the kernel schedule
// (compute_unit.h) decides how the phases of successive steps and of the unit's slots overlap. The softmax is counted
// as FlashAttention-2 executes it (Dao 2023, Algorithm 1; softmax_rescale_o in its kernel), per score: row max 1 ALU,
// exp2 argument s log2e scale - m 1 FMA, exp2 1, row sum 1 FMA, conversion of P to 16 bits 1 ALU per two scores;
// per row and block: the correction exp2(m_old - m_new) 1, rescaling the O accumulator d FMA and the sum 1 FMA; per
// row at the last block: the reciprocal of the sum and the division of O, d FMA. Naive attention's middle phase
// (the softmax over the score blocks in memory) counts as a softmax op does (counting.h).
//
// FLOPs: useful = 4 d per visible (query, key) pair (QK^T and PV, as counting.cpp counts them); executed counts
// whole blocks (masked and edge positions). The softmax's work is reported per engine (engine_ops), not as FLOPs.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "sim/graph/counting.h"
#include "sim/graph/lowering_detail.h"

namespace roofsim::detail {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

class AttentionLowering : public OpLowering {
 public:
  AttentionLowering(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw)
      : request_bytes_(hw.compute.request_bytes), flash_(op.shape.flash) {
    const auto& s = op.shape;
    const auto fail = [&](const std::string& what) {
      throw InputError(op.pos, fmt::format("op '{}': {}", op.name, what));
    };
    const auto tensor = [&](std::size_t index) -> const Tensor& {
      if (index >= tensors.size()) fail(fmt::format("names tensor #{} that does not exist", index));
      return tensors[index];
    };
    batch_ = std::max<std::uint64_t>(s.batch, 1);
    heads_ = s.heads;
    kv_heads_ = s.kv_heads == 0 ? s.heads : s.kv_heads;
    sq_ = s.seq_q;
    skv_ = s.seq_kv;
    d_ = s.head_dim;
    causal_ = s.causal;
    if (heads_ == 0 || sq_ == 0 || skv_ == 0 || d_ == 0)
      fail("attention needs heads, seq_q, seq_kv and head_dim above 0");
    if (heads_ % kv_heads_ != 0) fail("heads must be a multiple of kv_heads");
    if (op.inputs.empty() || op.outputs.empty()) fail("attention needs inputs and an output");
    group_ = heads_ / kv_heads_;
    e_ = element_bytes(op.dtype);
    width_ = (heads_ + 2 * kv_heads_) * d_;
    const Tensor& first = tensor(op.inputs[0]);
    fused_ = op.inputs.size() == 1 || first.bytes >= batch_ * sq_ * width_ * element_bytes(first.dtype);
    q_ = &first;
    if (op.inputs.size() >= 3) {
      k_ = &tensor(op.inputs[1]);
      v_ = &tensor(op.inputs[2]);
    } else if (op.inputs.size() == 1) {
      if (skv_ > sq_) fail("a fused [qkv] input without a KV cache needs seq_kv <= seq_q");
    } else {
      fail("attention takes [q, k, v], [qkv] or [qkv, k_cache, v_cache]");
    }
    o_ = &tensor(op.outputs[0]);
    if (!flash_) {
      if (op.scratch.empty()) fail("naive attention needs its score scratch tensor");
      scores_ = &tensor(op.scratch[0]);
    }
    rows_ = group_ * sq_;
    choose_blocks(hw);
    row_blocks_ = ceil_div(rows_, br_);
    key_blocks_ = ceil_div(skv_, bc_);
    const std::uint64_t base_tiles = batch_ * kv_heads_ * row_blocks_;
    const std::uint64_t slots = std::max<std::uint64_t>(1, hw.compute.units * hw.compute.occupancy);
    splits_ = 1;
    if (flash_ && row_blocks_ == 1 && base_tiles < slots) {
      splits_ = std::clamp<std::uint64_t>(ceil_div(slots, base_tiles), 1, key_blocks_);
    }
    split_tiles_ = base_tiles * splits_;
    tiles_ = split_tiles_;
    if (splits_ > 1) {
      // FlashAttention-2's combine blocks (run_mha_fwd_splitkv_dispatch): as few rows as its 128 threads load whole,
      // for parallelism.
      combine_rows_ = d_ % 128 == 0 ? 4 : (d_ % 64 == 0 ? 8 : 16);
      tiles_ = split_tiles_ + ceil_div(batch_ * heads_ * sq_, combine_rows_);
      Bytes end = 0;
      for (const auto& t : tensors) end = std::max(end, t.address + t.bytes);
      workspace_address_ = ceil_div(end, kWorkspaceAlignment) * kWorkspaceAlignment;
      lse_address_ = workspace_address_ + splits_ * batch_ * heads_ * sq_ * d_ * kAccumulatorBytes;
      partial_sum_bytes_ = splits_ * batch_ * heads_ * sq_ * (d_ + 1) * kAccumulatorBytes;
    }
    for (std::uint64_t t = 0; t < split_tiles_; ++t) {
      const auto blocks = tile_blocks(t);
      executed_flops_ += (blocks[1] - blocks[0]) * block_flops();
    }
    useful_flops_ = op.useful_flops;
    tile_shape_ = {br_, bc_, d_};
    description_ = fmt::format("{} attention {}x{} blocks{}", flash_ ? "flash" : "naive", br_, bc_,
                               splits_ > 1 ? fmt::format(", {} key splits + combine", splits_) : std::string());
  }

  [[nodiscard]] std::uint32_t steps(std::uint64_t tile) const override {
    if (tile >= split_tiles_) return static_cast<std::uint32_t>(splits_);
    const auto blocks = tile_blocks(tile);
    return static_cast<std::uint32_t>((blocks[1] - blocks[0]) * (flash_ ? 1 : 3));
  }

  void step(std::uint64_t tile, std::uint32_t index, TileStep& out) const override {
    out.clear();
    if (tile >= split_tiles_) {
      combine_step(tile - split_tiles_, index, out);
      return;
    }
    const Where w = where(tile);
    const auto blocks = tile_blocks(tile);
    const std::uint64_t per_phase = blocks[1] - blocks[0];
    const std::uint64_t phase = flash_ ? 0 : index / per_phase;
    const std::uint64_t block = blocks[0] + index % per_phase;
    const std::uint64_t k0 = block * bc_, k1 = std::min(skv_, k0 + bc_);
    const std::uint64_t r0 = w.row_block * br_, r1 = std::min(rows_, r0 + br_);
    const Flops pairs = visible_pairs(r0, r1, k0, k1);
    const bool last = index + 1 == steps(tile);
    {
      ChunkBuilder chunks(out, out.reads, request_bytes_, q_->resident);
      if (index == 0) {
        for (std::uint64_t r = r0; r < r1; ++r) chunks.add(q_address(w.b, head_of(w.g, r), r % sq_), d_ * e_);
      }
    }
    if (flash_ || phase == 0) add_kv(out, k_ != nullptr ? *k_ : *q_, w, k0, k1, false);
    if (!flash_ && phase > 0) {
      ChunkBuilder chunks(out, out.reads, request_bytes_);
      for (std::uint64_t r = r0; r < r1; ++r)
        chunks.add(score_address(w.b, head_of(w.g, r), r % sq_, k0), (k1 - k0) * e_);
    }
    if (flash_ || phase == 2) add_kv(out, v_ != nullptr ? *v_ : *q_, w, k0, k1, true);
    if (!flash_ && phase < 2) {
      ChunkBuilder chunks(out, out.writes, request_bytes_);
      for (std::uint64_t r = r0; r < r1; ++r)
        chunks.add(score_address(w.b, head_of(w.g, r), r % sq_, k0), (k1 - k0) * e_);
    }
    if (last && splits_ == 1) {
      ChunkBuilder chunks(out, out.writes, request_bytes_);
      for (std::uint64_t r = r0; r < r1; ++r) chunks.add(o_address(w.b, head_of(w.g, r), r % sq_), d_ * e_);
    } else if (last) {
      // A block's rows are consecutive (head, position) pairs of one batch entry, so its slot is contiguous.
      const std::uint64_t row = row_index(w.b, head_of(w.g, r0), r0 % sq_);
      ChunkBuilder(out, out.writes, request_bytes_)
          .add(partial_address(w.split, row), (r1 - r0) * d_ * kAccumulatorBytes);
      ChunkBuilder(out, out.writes, request_bytes_).add(lse_address(w.split, row), (r1 - r0) * kAccumulatorBytes);
    }
    const Flops matmul = 2 * br_ * bc_ * d_;
    const std::uint64_t scores = br_ * bc_;
    if (flash_) {
      out.executed_flops = block_flops();
      out.useful_flops = 4 * d_ * pairs;
      out.phase_count = 3;
      out.phases[0].flops = matmul;
      PhaseWork& softmax = out.phases[1];
      softmax.vector_alu = scores + scores / 2;
      softmax.vector_fma = 2 * scores + br_ * (d_ + 1);
      softmax.exp2 = scores + br_;
      if (last) {
        softmax.vector_fma += br_ * d_;
        softmax.reciprocal = br_;
        // The split's log-sum-exp m + ln(l): one lg2 on the special-function unit and one FMA per row.
        if (splits_ > 1) {
          softmax.exp2 += br_;
          softmax.vector_fma += br_;
        }
      }
      out.phases[2].flops = matmul;
    } else {
      out.executed_flops = phase == 1 ? 0 : matmul;
      out.useful_flops = phase == 1 ? 0 : 2 * d_ * pairs;
      if (phase == 1) {
        PhaseWork& softmax = out.phases[0];
        softmax.vector_alu = scores;
        softmax.vector_fma = 3 * scores;
        softmax.exp2 = scores;
        softmax.reciprocal = br_;
      } else {
        out.phases[0].flops = matmul;
      }
    }
  }

 private:
  struct Where {
    std::uint64_t b = 0, g = 0, row_block = 0, split = 0;
  };

  // The largest blocks whose working set fits the local SRAM: the Q block, double-buffered K and V blocks, the fp32
  // scores and the fp32 O accumulator (the same terms as hardware_check.cpp's minimal attention block).
  void choose_blocks(const HardwareParams& hw) {
    const Bytes local = local_sram_bytes(hw);
    constexpr std::array<std::array<std::uint64_t, 2>, 7> kCandidates{
        {{128, 128}, {128, 64}, {64, 64}, {64, 32}, {32, 32}, {16, 32}, {16, 16}}};
    for (const auto& [br, bc] : kCandidates) {
      br_ = std::min(br, rows_);
      bc_ = std::min(bc, skv_);
      const Bytes footprint = (br_ * d_ + 2 * 2 * bc_ * d_) * e_ + (br_ * bc_ + br_ * d_) * 4;
      if (local == 0 || footprint <= local) return;
    }
  }

  [[nodiscard]] Flops block_flops() const { return 4 * br_ * bc_ * d_; }

  // Step `index` of combine tile `block`, which combines output rows [block M, (block + 1) M) of [batch, heads,
  // seq_q], M = combine_rows_: the first step reads every split's log-sum-exps of the rows, step s reads split s's
  // partial rows and adds them, weighted, to the fp32 result, and the last step writes O. One split per step, as
  // combine_attn_seqk_parallel loops over the splits, loading one split's rows and accumulating them before the next.
  // Per row, as it computes them: the largest log-sum-exp (splits ALU ops), the sum of exp(lse_s - max) (an FMA and
  // an exp2 per split), the total ln(sum) + max (an lg2, counted on the special-function unit as exp2, and an FMA),
  // each split's weight exp(lse_s - total) (an FMA and an exp2 per split); then d FMAs per row and split, and the
  // conversion of the d results to 16 bits (an ALU op per two).
  void combine_step(std::uint64_t block, std::uint32_t index, TileStep& out) const {
    const std::uint64_t row = block * combine_rows_;
    const std::uint64_t rows = std::min(combine_rows_, batch_ * heads_ * sq_ - row);
    PhaseWork& work = out.phases[0];
    if (index == 0) {
      ChunkBuilder lse(out, out.reads, request_bytes_);
      for (std::uint64_t s = 0; s < splits_; ++s) lse.add(lse_address(s, row), rows * kAccumulatorBytes);
      work.vector_alu = rows * splits_;
      work.vector_fma = rows * (2 * splits_ + 1);
      work.exp2 = rows * (2 * splits_ + 1);
    }
    ChunkBuilder(out, out.reads, request_bytes_).add(partial_address(index, row), rows * d_ * kAccumulatorBytes);
    work.vector_fma += rows * d_;
    if (index + 1 == splits_) {
      ChunkBuilder(out, out.writes, request_bytes_).add(o_->address + row * d_ * e_, rows * d_ * e_);
      work.vector_alu += rows * d_ / 2;
    }
  }

  [[nodiscard]] Where where(std::uint64_t tile) const {
    Where w;
    w.split = tile % splits_;
    tile /= splits_;
    w.row_block = tile % row_blocks_;
    tile /= row_blocks_;
    w.g = tile % kv_heads_;
    w.b = tile / kv_heads_;
    return w;
  }

  [[nodiscard]] std::uint64_t head_of(std::uint64_t g, std::uint64_t row) const { return g * group_ + row / sq_; }

  // Keys query position `q` sees, as counting.cpp's attention_pairs counts them.
  [[nodiscard]] std::uint64_t visible(std::uint64_t q) const {
    if (!causal_) return skv_;
    const std::uint64_t queries = std::min(sq_, skv_);
    return q < queries ? skv_ - queries + q + 1 : 0;
  }

  [[nodiscard]] Flops visible_pairs(std::uint64_t r0, std::uint64_t r1, std::uint64_t k0, std::uint64_t k1) const {
    Flops pairs = 0;
    for (std::uint64_t r = r0; r < r1; ++r) {
      const std::uint64_t v = visible(r % sq_);
      if (v > k0) pairs += std::min(v, k1) - k0;
    }
    return pairs;
  }

  // Key blocks [first, end) of a tile: up to the last key any of its rows sees, then its share of the splits.
  [[nodiscard]] std::array<std::uint64_t, 2> tile_blocks(std::uint64_t tile) const {
    const Where w = where(tile);
    const std::uint64_t r0 = w.row_block * br_, r1 = std::min(rows_, r0 + br_);
    std::uint64_t keys = 0;
    for (std::uint64_t r = r0; r < r1; ++r) keys = std::max(keys, visible(r % sq_));
    const std::uint64_t blocks = std::max<std::uint64_t>(1, ceil_div(keys, bc_));
    return {w.split * blocks / splits_, (w.split + 1) * blocks / splits_};
  }

  [[nodiscard]] Bytes q_address(std::uint64_t b, std::uint64_t head, std::uint64_t q) const {
    if (fused_) return q_->address + ((b * (width_ / d_) + head) * sq_ + q) * d_ * e_;
    return q_->address + ((b * heads_ + head) * sq_ + q) * d_ * e_;
  }

  [[nodiscard]] Bytes o_address(std::uint64_t b, std::uint64_t head, std::uint64_t q) const {
    return o_->address + row_index(b, head, q) * d_ * e_;
  }

  // The output row of (batch entry, head, query position), as O and the workspace lay their rows out.
  [[nodiscard]] std::uint64_t row_index(std::uint64_t b, std::uint64_t head, std::uint64_t q) const {
    return (b * heads_ + head) * sq_ + q;
  }

  // Split `split`'s partial O row `row` (fp32) and its log-sum-exp, each split's slot a whole [batch, heads, seq_q]
  // array, as out_accum and softmax_lse_accum are laid out.
  [[nodiscard]] Bytes partial_address(std::uint64_t split, std::uint64_t row) const {
    return workspace_address_ + (split * batch_ * heads_ * sq_ + row) * d_ * kAccumulatorBytes;
  }
  [[nodiscard]] Bytes lse_address(std::uint64_t split, std::uint64_t row) const {
    return lse_address_ + (split * batch_ * heads_ * sq_ + row) * kAccumulatorBytes;
  }

  [[nodiscard]] Bytes score_address(std::uint64_t b, std::uint64_t head, std::uint64_t q, std::uint64_t key) const {
    return scores_->address + (((b * heads_ + head) * sq_ + q) * skv_ + key) * e_;
  }

  // The K (or V) rows [k0, k1) of KV head g, one contiguous block: from the cache or separate tensor ([b, kv_heads,
  // seq_kv, d]), else from the fused qkv tensor's K (or V) heads ([b, heads + 2 kv_heads, seq, d]).
  void add_kv(TileStep& out, const Tensor& tensor, const Where& w, std::uint64_t k0, std::uint64_t k1, bool v) const {
    ChunkBuilder chunks(out, out.reads, request_bytes_, tensor.resident);
    if (k_ != nullptr) {
      chunks.add(tensor.address + ((w.b * kv_heads_ + w.g) * skv_ + k0) * d_ * e_, (k1 - k0) * d_ * e_);
      return;
    }
    const std::uint64_t head = heads_ + (v ? kv_heads_ : 0) + w.g;
    chunks.add(tensor.address + ((w.b * (width_ / d_) + head) * sq_ + k0) * d_ * e_, (k1 - k0) * d_ * e_);
  }

  // FlashAttention-2 keeps the split partials and log-sum-exps in fp32 (ElementAccum, set_params_splitkv).
  static constexpr Bytes kAccumulatorBytes = 4;
  // The workspace starts on a page boundary past the tensors, as the stream-K GEMM's does.
  static constexpr Bytes kWorkspaceAlignment = 4096;

  Bytes request_bytes_;
  bool flash_ = true, fused_ = false, causal_ = false;
  const Tensor *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *o_ = nullptr, *scores_ = nullptr;
  std::uint64_t batch_ = 1, heads_ = 0, kv_heads_ = 0, sq_ = 0, skv_ = 0, d_ = 0, group_ = 1, width_ = 0;
  Bytes e_ = 2;
  std::uint64_t rows_ = 0, br_ = 16, bc_ = 16, row_blocks_ = 0, key_blocks_ = 0, splits_ = 1;
  std::uint64_t split_tiles_ = 0;   // the key-split tiles; the combine tiles follow them
  std::uint64_t combine_rows_ = 0;  // output rows per combine tile
  Bytes workspace_address_ = 0, lse_address_ = 0;
};

}  // namespace

std::unique_ptr<OpLowering> lower_attention(const Op& op, const std::vector<Tensor>& tensors,
                                            const HardwareParams& hw) {
  return std::make_unique<AttentionLowering>(op, tensors, hw);
}

}  // namespace roofsim::detail
