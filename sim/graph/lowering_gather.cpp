// Embedding lowering: each output row is a gather of one table row at its token's id. Token ids are
// not part of a workload file, so they come from a seeded generator (token_id): uniformly spread rows, deterministic
// across runs, so that the table reads land on scattered DRAM rows as real token streams do (a hot token repeats
// and may hit in the L2, as it would). A tile is a run of tokens; a step gathers one token: its id (with the tile's
// first step), its table row, and writes its output row.
#include <algorithm>

#include <fmt/format.h>

#include "sim/graph/lowering_detail.h"

namespace roofsim::detail {

std::uint64_t token_id(std::uint64_t seed, std::uint64_t token, std::uint64_t vocab) {
  std::uint64_t z = seed + (token + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return vocab == 0 ? 0 : z % vocab;
}

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

// The seed of the token stream. Fixed so that reports are reproducible; any value gives the same statistics.
constexpr std::uint64_t kTokenSeed = 0x5EED;

class EmbeddingLowering : public OpLowering {
 public:
  EmbeddingLowering(const Op& op, const std::vector<Tensor>& tensors, const HardwareParams& hw)
      : request_bytes_(hw.compute.request_bytes) {
    const auto& s = op.shape;
    const auto fail = [&](const std::string& what) {
      throw InputError(op.pos, fmt::format("op '{}': {}", op.name, what));
    };
    if (op.inputs.empty() || op.outputs.empty()) fail("embedding needs a table input and an output");
    const auto tensor = [&](std::size_t index) -> const Tensor& {
      if (index >= tensors.size()) fail(fmt::format("names tensor #{} that does not exist", index));
      return tensors[index];
    };
    table_ = &tensor(op.inputs[0]);
    if (op.inputs.size() > 1) ids_ = &tensor(op.inputs[1]);
    out_ = &tensor(op.outputs[0]);
    tokens_ = s.rows;
    cols_ = s.cols;
    if (tokens_ == 0 || cols_ == 0) fail("embedding needs rows (tokens) and cols above 0");
    row_bytes_ = cols_ * element_bytes(table_->dtype);
    vocab_ = s.vocab > 0 ? s.vocab : std::max<std::uint64_t>(1, table_->bytes / row_bytes_);
    // 16 tokens a tile, fewer when that would leave units idle.
    const std::uint64_t slots = std::max<std::uint64_t>(1, hw.compute.units * hw.compute.occupancy);
    tokens_per_tile_ = std::clamp<std::uint64_t>(ceil_div(tokens_, slots), 1, 16);
    tiles_ = ceil_div(tokens_, tokens_per_tile_);
    executed_flops_ = 0;
    useful_flops_ = 0;
    tile_shape_ = {tokens_per_tile_, cols_, 0};
    description_ = fmt::format("gather {} rows of {} B a tile", tokens_per_tile_, row_bytes_);
  }

  [[nodiscard]] std::uint32_t steps(std::uint64_t tile) const override {
    return static_cast<std::uint32_t>(std::min(tokens_per_tile_, tokens_ - tile * tokens_per_tile_));
  }

  void step(std::uint64_t tile, std::uint32_t index, TileStep& out) const override {
    out.clear();
    const std::uint64_t first = tile * tokens_per_tile_;
    const std::uint64_t token = first + index;
    if (index == 0 && ids_ != nullptr) {
      const Bytes id_bytes = ids_->bytes / std::max<std::uint64_t>(tokens_, 1);
      ChunkBuilder chunks(out, out.reads, request_bytes_, ids_->resident);
      if (id_bytes > 0) chunks.add(ids_->address + first * id_bytes, steps(tile) * id_bytes);
    }
    {
      ChunkBuilder chunks(out, out.reads, request_bytes_, table_->resident);
      const Bytes at = token_id(kTokenSeed, token, vocab_) * row_bytes_;
      chunks.add(table_->address + std::min(at, table_->bytes - std::min(table_->bytes, row_bytes_)), row_bytes_);
    }
    {
      ChunkBuilder chunks(out, out.writes, request_bytes_);
      chunks.add(out_->address + token * row_bytes_, row_bytes_);
    }
  }

 private:
  Bytes request_bytes_;
  const Tensor *table_ = nullptr, *ids_ = nullptr, *out_ = nullptr;
  std::uint64_t tokens_ = 0, cols_ = 0, vocab_ = 1, tokens_per_tile_ = 1;
  Bytes row_bytes_ = 0;
};

}  // namespace

std::unique_ptr<OpLowering> lower_embedding(const Op& op, const std::vector<Tensor>& tensors,
                                            const HardwareParams& hw) {
  return std::make_unique<EmbeddingLowering>(op, tensors, hw);
}

}  // namespace roofsim::detail
