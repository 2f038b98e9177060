#pragma once
// What one tile of an op does, step by step, over real address ranges. The lowering (sim/graph/lowering.h)
// produces these on demand, one step at a time, so that a GEMM of 4096 tiles x 128 k-steps never holds its whole
// access list in memory. The engine turns each chunk into one memory request (DESIGN.md section 1.5).
#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace roofsim {

// A contiguous byte range of a tensor in device memory.
struct AddressRange {
  Bytes address = 0;
  Bytes bytes = 0;
};

// One memory request: at most `request_bytes` of one operand, as one or more contiguous ranges (a tile's rows are
// strided in a row-major tensor). One event per chunk, whatever the number of ranges.
struct Chunk {
  std::vector<AddressRange> ranges;
  Bytes bytes = 0;        // sum of the ranges
  bool resident = false;  // of a tensor kept on chip (SRAM-centric designs): served by the outermost SRAM level

  void add(Bytes address, Bytes length) {
    if (!ranges.empty() && ranges.back().address + ranges.back().bytes == address) {
      ranges.back().bytes += length;
    } else {
      ranges.push_back({address, length});
    }
    bytes += length;
  }
};

// One step of a tile: the chunks it reads (all must arrive before it computes), its computation, and the chunks it
// writes after computing. A GEMM k-step reads an A chunk and a B chunk; its last step also writes the C tile.
struct TileStep {
  std::vector<Chunk> reads;
  std::vector<Chunk> writes;
  Flops executed_flops = 0;  // what the engine spends: a whole tile's worth even at the edges
  Flops useful_flops = 0;    // the in-bounds part of the algorithm's FLOPs

  void clear() {
    reads.clear();
    writes.clear();
    executed_flops = 0;
    useful_flops = 0;
  }
};

// Splits byte ranges into chunks of at most `request_bytes`, keeping ranges in order.
class ChunkBuilder {
 public:
  ChunkBuilder(std::vector<Chunk>& out, Bytes request_bytes, bool resident = false)
      : out_(out), request_bytes_(request_bytes), resident_(resident) {}

  void add(Bytes address, Bytes length) {
    while (length > 0) {
      if (out_.empty() || !open_ || out_.back().bytes == request_bytes_) {
        out_.emplace_back();
        out_.back().resident = resident_;
        open_ = true;
      }
      const Bytes room = request_bytes_ - out_.back().bytes;
      const Bytes take = length < room ? length : room;
      out_.back().add(address, take);
      address += take;
      length -= take;
    }
  }

 private:
  std::vector<Chunk>& out_;
  Bytes request_bytes_;
  bool resident_;
  bool open_ = false;  // the last chunk of `out_` belongs to this builder (another operand's chunk is never shared)
};

}  // namespace roofsim
