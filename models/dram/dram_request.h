#pragma once
// The request interface of the DRAM model, for the engine and for trace mode.
//
// A request is a contiguous byte range, read or written: `DramDevice::try_submit(DramRequest)` (dram_device.h). The
// device splits it into the parts that fall in one channel, bank and row (by the address mapping) and queues them;
// it returns false, taking nothing, when a channel the request touches has a full queue: wait for
// `DramDevice::space_event()` and try again. A request completes when its last data beat has transferred (reads:
// the data is back; writes: the data is in the DRAM). Completion is reported in two optional ways:
//   - `done_sink->request_done(tag, done)`: called from the device's process as soon as the completion time is
//     known, which is when the request's last part is scheduled, at or before `done` (an absolute sc_time). Callers
//     that must act at `done` notify their own event with `done - sc_time_stamp()`.
//   - `done_event`: notified by the device at `done`.
// Requests of any size are accepted; the engine's chunks (at most a row) become a few parts each, one decision each.
#include <cstdint>
#include <optional>

#include <systemc>

#include "sim/core/units.h"

namespace roofsim::dram {

// Told of a request's completion (DramRequest::done_sink), with the request's tag.
class DramDoneSink {
 public:
  virtual void request_done(std::uint64_t tag, const sc_core::sc_time& done) = 0;

 protected:
  ~DramDoneSink() = default;
};

struct DramRequest {
  std::uint64_t address = 0;
  Bytes bytes = 0;
  bool is_write = false;
  sc_core::sc_event* done_event = nullptr;  // optional
  DramDoneSink* done_sink = nullptr;        // optional
  std::uint64_t tag = 0;  // the caller's tag: handed to done_sink, and to the part observer with each part
};

// A request of a source the device pulls from (trace mode): offered no earlier than `at_s`, and then as soon as the
// queues have room. Pulling avoids an event per request when the source runs ahead of the DRAM.
struct SourcedRequest {
  Seconds at_s = 0;
  std::uint64_t address = 0;
  Bytes bytes = 0;
  bool is_write = false;
};

class DramRequestSource {
 public:
  virtual ~DramRequestSource() = default;
  // The next request, or nullopt when the source is exhausted. Requests come in non-decreasing `at_s`.
  [[nodiscard]] virtual std::optional<SourcedRequest> peek() const = 0;
  virtual void pop() = 0;
};

}  // namespace roofsim::dram
