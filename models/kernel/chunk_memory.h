#pragma once
// What a compute unit sees of the memory below it: it reads and writes chunks (tile.h) and hears of each chunk's
// completion. The memory model (models/memory/memory_system.h) implements it; a chunk costs one virtual call here,
// while the levels, tags and ports it passes are plain calls inside the memory model.
#include <cstdint>

#include "models/kernel/tile.h"
#include "models/kernel/time_fs.h"

namespace roofsim {

class ChunkCompletionSink {
 public:
  // Chunk `tag` is complete at `done_fs`; `unloaded_fs` is what it would have taken on an idle device.
  virtual void chunk_done(std::uint64_t tag, TimeFs done_fs, TimeFs unloaded_fs) = 0;

 protected:
  ~ChunkCompletionSink() = default;
};

class ChunkMemory {
 public:
  // A unit's read or write of a chunk issued at `now`; adds the bytes each level moved to `op_bytes` (one entry per
  // level of the memory, DRAM last) and reports completion to `sink` (possibly before returning). `op` (the issuing
  // op's index) rides on the DRAM requests for per-op DRAM statistics.
  void read(std::uint64_t unit, const ChunkView& chunk, TimeFs now, Bytes* op_bytes, ChunkCompletionSink& sink,
            std::uint64_t tag, std::uint32_t op = 0) {
    access(unit, chunk, false, now, op_bytes, sink, tag, op);
  }
  void write(std::uint64_t unit, const ChunkView& chunk, TimeFs now, Bytes* op_bytes, ChunkCompletionSink& sink,
             std::uint64_t tag, std::uint32_t op = 0) {
    access(unit, chunk, true, now, op_bytes, sink, tag, op);
  }

 protected:
  ~ChunkMemory() = default;

 private:
  virtual void access(std::uint64_t unit, const ChunkView& chunk, bool write, TimeFs now, Bytes* op_bytes,
                      ChunkCompletionSink& sink, std::uint64_t tag, std::uint32_t op) = 0;
};

}  // namespace roofsim
