#pragma once
// Helpers of the DRAM unit tests: the bundled standards, and a plain-C++ driver of one DramChannel (the same loop
// the DramDevice module runs: queue what has arrived while there is room, decide when a decision is due).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/dram/dram_channel.h"
#include "sim/config/dram_params.h"
#include "tests/support/test_paths.h"

namespace roofsim::dram::test {

inline DramStandardParams standard(const std::string& name) {
  return load_dram_standard(roofsim::test::config_path("dram/" + name + ".toml"));
}

struct TestRequest {
  Cycle arrival = 0;
  std::uint32_t bank = 0;
  std::uint64_t row = 0;
  std::uint32_t bursts = 1;
  bool is_write = false;
};

// Runs the requests (in arrival order) to completion; returns each request's completion, indexed like the input.
inline std::vector<SegmentDone> run_channel(DramChannel& channel, const std::vector<TestRequest>& requests) {
  std::vector<SegmentDone> done(requests.size());
  std::size_t next = 0;
  Cycle now = 0;
  while (next < requests.size() || channel.has_work()) {
    channel.release_until(now);
    while (next < requests.size() && requests[next].arrival <= now && channel.has_space(requests[next].is_write)) {
      const auto& request = requests[next];
      channel.enqueue(Segment{next, request.row, request.arrival, request.bank, request.bursts, request.is_write});
      ++next;
    }
    if (channel.has_work() && channel.decision_cycle() <= now) {
      for (const auto& part : channel.decide(now)) done[part.parent] = part;
      continue;
    }
    Cycle wake = channel.has_work() ? channel.decision_cycle() : kNever;
    if (next < requests.size() && requests[next].arrival > now) wake = std::min(wake, requests[next].arrival);
    if (next < requests.size()) wake = std::min(wake, channel.next_release());
    now = std::max(now + 1, wake == kNever ? now + 1 : wake);
  }
  return done;
}

inline ChannelPolicy policy(PagePolicy page = PagePolicy::open, RefreshMode refresh = RefreshMode::none,
                            DramScheduler scheduler = DramScheduler::frfcfs) {
  ChannelPolicy result;
  result.page = page;
  result.refresh = refresh;
  result.scheduler = scheduler;
  return result;
}

}  // namespace roofsim::dram::test
