#pragma once
// Where the DRAM device pulls requests from in trace mode (`roofsim dram`, DramDevice::attach_source): requests
// (models/kernel/dram_interface.h) in non-decreasing arrival time. The device takes each no earlier than its
// `arrival_fs`, and then as soon as its queues have room; pulling avoids an event per request when the source runs
// ahead of the DRAM.
#include <optional>

#include "models/kernel/dram_interface.h"

namespace roofsim::dram {

class DramRequestSource {
 public:
  virtual ~DramRequestSource() = default;
  // The next request, or nullopt when the source is exhausted.
  [[nodiscard]] virtual std::optional<DramRequest> peek() const = 0;
  virtual void pop() = 0;
};

}  // namespace roofsim::dram
