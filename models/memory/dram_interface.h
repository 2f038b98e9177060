#pragma once
// The engine's view of DRAM: requests of address ranges in, completion times out. The simple channel model
// (simple_dram.h) implements it here; the detailed controller model (models/dram/, issue 7) implements the same
// interface, and may report completions later (from its own process) rather than at once.
#include <cstdint>

#include "models/memory/time_fs.h"

namespace roofsim {

struct DramRequest {
  Bytes address = 0;
  Bytes bytes = 0;
  bool write = false;
  TimeFs arrival_fs = 0;  // when the request reaches the controller (now, or later)
  std::uint64_t id = 0;   // the requester's tag, handed back on completion
  std::uint32_t op = 0;   // the op that issued it (its workload index), for per-op DRAM statistics
};

class DramCompletionSink {
 public:
  // The request's data has been transferred at `done_fs` (>= its arrival); a read's data is back at the unit.
  virtual void dram_done(std::uint64_t id, TimeFs done_fs) = 0;

 protected:
  ~DramCompletionSink() = default;
};

class DramInterface {
 public:
  virtual ~DramInterface() = default;
  // Accepts a request; calls sink.dram_done exactly once for it, possibly before returning.
  virtual void submit(const DramRequest& request, DramCompletionSink& sink) = 0;

  [[nodiscard]] virtual Bytes bytes_read() const = 0;
  [[nodiscard]] virtual Bytes bytes_written() const = 0;
  [[nodiscard]] virtual std::uint32_t channels() const = 0;
  // What a lone request of `bytes` would take (latency and transfer), to split measured waits into latency and
  // queueing.
  [[nodiscard]] virtual TimeFs unloaded_fs(Bytes address, Bytes bytes) const = 0;
};

}  // namespace roofsim
