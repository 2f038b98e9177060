// The GEMM lowering emits each operand block of a step as one contiguous range of the tile-blocked layout. That must
// equal, range for range and chunk for chunk, the chunks of adding the block's rows one by one to a ChunkBuilder (the
// definition of a step's chunks in models/kernel/tile.h), and the blocks of a tensor must cover it exactly once.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/graph/lowering.h"
#include "tests/scenario/test_device.h"

using namespace roofsim;

namespace {

struct Gemm {
  std::uint64_t m, n, k;
  TileShape tile;
  std::uint64_t batch = 1;
};

// A, B and C row by row (the tiles in row-major order over batch, tile row, tile column; one tile per output tile),
// in the tile-blocked layout: block row i0 of A holds its k-blocks one after another, each rows x depth elements;
// k-block k0 of B holds its column blocks, each depth x cols; block row i0 of C holds its column blocks.
void reference_step(const Gemm& g, const std::vector<Tensor>& tensors, Bytes request_bytes, std::uint64_t tile,
                    std::uint32_t index, TileStep& out) {
  out.clear();
  const std::uint64_t tiles_m = (g.m + g.tile.m - 1) / g.tile.m, tiles_n = (g.n + g.tile.n - 1) / g.tile.n;
  const std::uint64_t k_steps = (g.k + g.tile.k - 1) / g.tile.k;
  const std::uint64_t b = tile / (tiles_m * tiles_n), within = tile % (tiles_m * tiles_n);
  const std::uint64_t i0 = within / tiles_n * g.tile.m, j0 = within % tiles_n * g.tile.n;
  const std::uint64_t i1 = std::min(g.m, i0 + g.tile.m), j1 = std::min(g.n, j0 + g.tile.n);
  const std::uint64_t k0 = index * g.tile.k, k1 = std::min(g.k, k0 + g.tile.k);
  const Bytes e = 2;  // bf16
  const Tensor &a = tensors[0], &bt = tensors[1], &c = tensors[2];
  {
    ChunkBuilder chunks(out, out.reads, request_bytes);
    const Bytes block = a.address + ((b * g.m + i0) * g.k + (i1 - i0) * k0) * e;
    for (std::uint64_t i = i0; i < i1; ++i) chunks.add(block + (i - i0) * (k1 - k0) * e, (k1 - k0) * e);
  }
  {
    ChunkBuilder chunks(out, out.reads, request_bytes);
    const Bytes block = bt.address + (k0 * g.n + (k1 - k0) * j0) * e;
    for (std::uint64_t kk = k0; kk < k1; ++kk) chunks.add(block + (kk - k0) * (j1 - j0) * e, (j1 - j0) * e);
  }
  if (index + 1 == k_steps) {
    ChunkBuilder chunks(out, out.writes, request_bytes);
    const Bytes block = c.address + ((b * g.m + i0) * g.n + (i1 - i0) * j0) * e;
    for (std::uint64_t i = i0; i < i1; ++i) chunks.add(block + (i - i0) * (j1 - j0) * e, (j1 - j0) * e);
  }
}

bool same_chunks(const TileStep& x, const std::vector<Chunk>& xs, const TileStep& y, const std::vector<Chunk>& ys) {
  if (xs.size() != ys.size()) return false;
  for (std::size_t c = 0; c < xs.size(); ++c) {
    const auto u = x.view(xs[c]), v = y.view(ys[c]);
    if (u.count != v.count || u.bytes != v.bytes || u.resident != v.resident) return false;
    for (std::uint32_t r = 0; r < u.count; ++r) {
      if (u.ranges[r].address != v.ranges[r].address || u.ranges[r].bytes != v.ranges[r].bytes) return false;
    }
  }
  return true;
}

// Every step of the op equals the reference; returns the steps compared. Also checks that the blocks read of A by
// the first tile column, of B by the first tile row, and the blocks written of C cover each tensor exactly once.
std::uint64_t compare_all_steps(const Gemm& g) {
  test::TestDevice spec;
  spec.units = 1;  // one unit: no stream-K, one tile per output tile
  const auto hw = spec.build();
  test::WorkloadBuilder builder;
  builder.gemm("g", g.m, g.n, g.k, g.tile, g.batch);
  auto& w = builder.workload();
  const auto lowering = lower_op(w.ops[0], w.tensors, hw);
  REQUIRE(lowering->partial_sum_bytes() == 0);
  TileStep got, expected;
  std::uint64_t compared = 0;
  const std::uint64_t tiles_m = (g.m + g.tile.m - 1) / g.tile.m, tiles_n = (g.n + g.tile.n - 1) / g.tile.n;
  std::vector<AddressRange> a_blocks, b_blocks, c_blocks;
  const auto collect = [](const TileStep& step, const std::vector<Chunk>& chunks, std::size_t first, std::size_t count,
                          std::vector<AddressRange>& into) {
    for (std::size_t c = first; c < first + count; ++c) {
      const auto view = step.view(chunks[c]);
      into.insert(into.end(), view.ranges, view.ranges + view.count);
    }
  };
  for (std::uint64_t tile = 0; tile < lowering->tiles(); ++tile) {
    for (std::uint32_t s = 0; s < lowering->steps(tile); ++s) {
      lowering->step(tile, s, got);
      {
        // The step's A chunks come first, then its B chunks.
        const std::uint64_t within = tile % (tiles_m * tiles_n);
        std::size_t a_chunks = 0;
        Bytes a_bytes = 0;
        const Bytes a_begin = w.tensors[0].address, a_end = a_begin + w.tensors[0].bytes;
        const auto in_a = [&](const Chunk& chunk) {
          const Bytes at = got.view(chunk).ranges[0].address;
          return at >= a_begin && at < a_end;
        };
        while (a_chunks < got.reads.size() && in_a(got.reads[a_chunks])) {
          a_bytes += got.reads[a_chunks].bytes;
          ++a_chunks;
        }
        CHECK(a_bytes > 0);
        if (within % tiles_n == 0) collect(got, got.reads, 0, a_chunks, a_blocks);
        if (within / tiles_n == 0 && tile / (tiles_m * tiles_n) == 0)
          collect(got, got.reads, a_chunks, got.reads.size() - a_chunks, b_blocks);
        collect(got, got.writes, 0, got.writes.size(), c_blocks);
      }
      reference_step(g, w.tensors, hw.compute.request_bytes, tile, s, expected);
      INFO("tile " << tile << " step " << s);
      REQUIRE(same_chunks(got, got.reads, expected, expected.reads));
      REQUIRE(same_chunks(got, got.writes, expected, expected.writes));
      ++compared;
    }
  }
  const auto covers_once = [](std::vector<AddressRange> ranges, Bytes address, Bytes bytes) {
    std::sort(ranges.begin(), ranges.end(), [](const auto& x, const auto& y) { return x.address < y.address; });
    Bytes at = address;
    for (const auto& r : ranges) {
      if (r.address != at) return false;
      at += r.bytes;
    }
    return at == address + bytes;
  };
  const Bytes e = 2;
  CHECK(covers_once(a_blocks, w.tensors[0].address, g.batch * g.m * g.k * e));
  CHECK(covers_once(b_blocks, w.tensors[1].address, g.k * g.n * e));
  CHECK(covers_once(c_blocks, w.tensors[2].address, g.batch * g.m * g.n * e));
  return compared;
}

}  // namespace

TEST_CASE("GEMM blocks equal row-by-row chunks: interior and edge tiles, blocks covering each tensor once") {
  // Edges in m, n and k; rows of 128 B (A) and 256 B (B, C) that do not divide into 4 KiB evenly at the edges.
  CHECK(compare_all_steps({300, 257, 200, {128, 128, 64}}) == 9 * 4);
  // Rows that straddle a chunk: 384 B rows into 4 KiB chunks.
  CHECK(compare_all_steps({100, 192, 384, {64, 192, 192}}) == 2 * 2);
}

TEST_CASE("GEMM blocks equal row-by-row chunks: batched and single-row GEMMs") {
  // k = tk: A's rows touch; n = tn: B's and C's rows touch. Batched, so that a tile's A block follows another's.
  CHECK(compare_all_steps({256, 128, 64, {128, 128, 64}, 3}) == 3 * 2);
  // A single row (a decode GEMM) over a wide tensor.
  CHECK(compare_all_steps({1, 1024, 512, {16, 256, 64}}) == 4 * 8);
}
