#pragma once
// The one vocabulary of DRAM requests: what the memory system asks of a DRAM model (DramInterface, implemented by the
// channel model, models/dram/simple_dram.h, and by the controller model, models/dram/engine_dram_adapter.h), what the
// controller of a device queues (models/dram/dram_device.h) and what a trace feeds it (`roofsim dram`). A request is
// a contiguous byte range, read or written; its completion is reported through a DramCompletionSink with the
// requester's tag.
#include <cstdint>

#include "models/kernel/time_fs.h"

namespace roofsim {

struct DramRequest {
  Bytes address = 0;
  Bytes bytes = 0;
  bool write = false;
  TimeFs arrival_fs = 0;  // when the request reaches the controller (now, or later for a trace's requests)
  std::uint64_t tag = 0;  // the requester's, handed back on completion
  std::uint32_t op = 0;   // the op that issued it (its workload index), for per-op DRAM statistics
};

class DramCompletionSink {
 public:
  // Request `tag` has transferred its last data beat at `done_fs` (>= its arrival): a read's data is back, a write's
  // data is in the DRAM.
  virtual void dram_done(std::uint64_t tag, TimeFs done_fs) = 0;

 protected:
  ~DramCompletionSink() = default;
};

class DramInterface {
 public:
  virtual ~DramInterface() = default;
  // Accepts a request; calls sink.dram_done exactly once for it, possibly before returning (the channel model) or
  // later, from the model's own process (the controller model).
  virtual void submit(const DramRequest& request, DramCompletionSink& sink) = 0;

  [[nodiscard]] virtual Bytes bytes_read() const = 0;
  [[nodiscard]] virtual Bytes bytes_written() const = 0;
  [[nodiscard]] virtual std::uint32_t channels() const = 0;
  // What a lone request of `bytes` would take (latency and transfer), to split measured waits into latency and
  // queueing.
  [[nodiscard]] virtual TimeFs unloaded_fs(Bytes address, Bytes bytes) const = 0;
};

}  // namespace roofsim
