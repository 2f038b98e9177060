#pragma once
// Where the compute units get an op's work from: its tiles, each a sequence of steps over real address ranges
// (tile.h), generated one step at a time. The workload's lowering (sim/graph/lowering.h) implements it; the models see
// only this contract, so that a tile of any op kind, or of a test's own source, runs the same way.
#include <cstdint>
#include <string>

#include "models/kernel/tile.h"
#include "sim/core/units.h"

namespace roofsim {

class TileSource {
 public:
  virtual ~TileSource() = default;

  [[nodiscard]] virtual std::uint64_t tiles() const = 0;
  [[nodiscard]] virtual std::uint32_t steps(std::uint64_t tile) const = 0;
  // Fills `out` (cleared first) with step `index` of `tile`; chunks hold at most request_bytes each.
  virtual void step(std::uint64_t tile, std::uint32_t index, TileStep& out) const = 0;

  // Closed-form totals, against which the engine checks what it executed.
  [[nodiscard]] virtual Flops executed_flops() const = 0;
  [[nodiscard]] virtual Flops useful_flops() const = 0;
  [[nodiscard]] virtual const TileShape& tile_shape() const = 0;
  // Bytes of partial sums a stream-K GEMM writes to its workspace (and reads back as much), else 0.
  [[nodiscard]] virtual Bytes partial_sum_bytes() const = 0;
  [[nodiscard]] virtual const std::string& description() const = 0;  // "gemm tile 128x128x64"
};

}  // namespace roofsim
