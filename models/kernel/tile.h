#pragma once
// What one tile of an op does, step by step, over real address ranges: the contract between the workload's lowering,
// which produces the steps on demand (tile_source.h), and the models, which run them. One step at a time, so that a
// GEMM of 4096 tiles x 128 k-steps never holds its whole access list in memory. A compute unit turns each chunk into
// one memory request (DESIGN.md section 1.5).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace roofsim {

// The output block of a GEMM tile (m x n) and its k-step depth.
struct TileShape {
  std::uint64_t m = 0, n = 0, k = 0;
};

// A contiguous byte range of a tensor in device memory.
struct AddressRange {
  Bytes address = 0;
  Bytes bytes = 0;
};

// One memory request: at most `request_bytes` of one operand, as one or more contiguous ranges (a conv's input rows,
// a broadcast operand's wrap, a stream-K tile's partial sums). One event per chunk, whatever the number of ranges. The
// ranges live in the step that owns the chunk (TileStep::ranges), so that generating a step reuses storage rather than
// allocating.
struct Chunk {
  std::uint32_t first = 0;  // index of its first range in TileStep::ranges
  std::uint32_t count = 0;  // ranges
  Bytes bytes = 0;          // sum of the ranges
  bool resident = false;    // of a tensor kept on chip (SRAM-centric designs): served by the outermost SRAM level
};

// A chunk with its ranges, as the memory system takes it.
struct ChunkView {
  const AddressRange* ranges = nullptr;
  std::uint32_t count = 0;
  Bytes bytes = 0;
  bool resident = false;
};

// The work of one phase of a step on each kind of engine of a unit. The engines a phase uses run concurrently and the
// phase ends when the last of them finishes (a softmax's vector lanes and special-function units work side by side).
// Counts are what the kernel executes: lane operations, one per element and instruction.
struct PhaseWork {
  Flops flops = 0;               // on the op's own engine (tensor cores, MXU; the vector lanes for a vector GEMM)
  std::uint64_t vector_fma = 0;  // vector lane-ops of the FMA class: fused multiply-add, add, multiply (an FMA is 1)
  std::uint64_t vector_alu = 0;  // vector lane-ops of the ALU class: max, min, compare, conversion
  std::uint64_t exp2 = 0;        // special-function ops: base-2 exponential (and tanh, on the same unit)
  std::uint64_t reciprocal = 0;  // special-function ops: reciprocal
  std::uint64_t rsqrt = 0;       // special-function ops: reciprocal square root

  PhaseWork& operator+=(const PhaseWork& other) {
    flops += other.flops;
    vector_fma += other.vector_fma;
    vector_alu += other.vector_alu;
    exp2 += other.exp2;
    reciprocal += other.reciprocal;
    rsqrt += other.rsqrt;
    return *this;
  }
  [[nodiscard]] bool empty() const {
    return flops == 0 && vector_fma == 0 && vector_alu == 0 && exp2 == 0 && reciprocal == 0 && rsqrt == 0;
  }
};

// A step runs at most this many phases, one after another (an attention step: S = Q K^T, the online softmax, P V).
inline constexpr std::uint32_t kMaxPhases = 3;

// One step of a tile: the chunks it reads (all must arrive before it computes), its computation as a short fixed
// list of phases, and the chunks it writes after computing. A GEMM k-step reads an A chunk and a B chunk and computes
// in one phase; its last step also writes the C tile.
struct TileStep {
  std::vector<AddressRange> ranges;
  std::vector<Chunk> reads;
  std::vector<Chunk> writes;
  Flops executed_flops = 0;                    // the FLOP count of the step: a whole tile's worth even at the edges
  Flops useful_flops = 0;                      // the in-bounds part of the algorithm's FLOPs
  std::array<PhaseWork, kMaxPhases> phases{};  // the work, phase by phase; phases [phase_count, kMaxPhases) are empty
  std::uint32_t phase_count = 1;

  void clear() {
    ranges.clear();
    reads.clear();
    writes.clear();
    executed_flops = 0;
    useful_flops = 0;
    phases = {};
    phase_count = 1;
  }
  // The step's work summed over its phases.
  [[nodiscard]] PhaseWork work() const {
    PhaseWork total;
    for (std::uint32_t p = 0; p < phase_count; ++p) total += phases[p];
    return total;
  }
  [[nodiscard]] ChunkView view(const Chunk& chunk) const {
    return ChunkView{ranges.data() + chunk.first, chunk.count, chunk.bytes, chunk.resident};
  }
};

// Splits byte ranges into chunks of at most `request_bytes` appended to `chunks` (one operand's list of a step),
// keeping ranges in order and merging contiguous ones. A builder never adds to another builder's chunk.
class ChunkBuilder {
 public:
  ChunkBuilder(TileStep& step, std::vector<Chunk>& chunks, Bytes request_bytes, bool resident = false)
      : step_(step), chunks_(chunks), request_bytes_(request_bytes), resident_(resident) {}

  void add(Bytes address, Bytes length) {
    while (length > 0) {
      if (!open_ || chunks_.back().bytes == request_bytes_) {
        // Fields written in place: a temporary built on the stack is stored field by field and reloaded whole, and
        // that reload waits for the stores (no store forwarding), on a path run for every chunk of every step.
        Chunk& fresh = chunks_.emplace_back();
        fresh.first = static_cast<std::uint32_t>(step_.ranges.size());
        fresh.resident = resident_;
        open_ = true;
      }
      Chunk& chunk = chunks_.back();
      const Bytes take = std::min(length, request_bytes_ - chunk.bytes);
      if (chunk.count > 0 && step_.ranges.back().address + step_.ranges.back().bytes == address) {
        step_.ranges.back().bytes += take;
      } else {
        AddressRange& range = step_.ranges.emplace_back();
        range.address = address;
        range.bytes = take;
        ++chunk.count;
      }
      chunk.bytes += take;
      address += take;
      length -= take;
    }
  }

 private:
  TileStep& step_;
  std::vector<Chunk>& chunks_;
  Bytes request_bytes_;
  bool resident_;
  bool open_ = false;
};

}  // namespace roofsim
