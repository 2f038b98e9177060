// The two pseudo-channels of an HBM channel share its row command bus: driven together as DramDevice drives them
// (each decides when its decision is due, in index order at the same cycle), no two of their ACTs, PREs and REFs may
// occupy one row-bus cycle. A decision forgets the bus cycles before it; a refresh due earlier, issued at a later
// decision of its channel (the next one of a busy channel, the first after an idle stretch), asks about the bus from
// its due cycle, so the refreshes of every channel on the bus must have caught up by then.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "models/dram/dram_channel.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

struct BusUse {
  Cycle at = 0, cycles = 0;
  std::size_t channel = 0;
  DramCommand command = DramCommand::act;
};

// Row-bus cycles of a command (column commands use the other bus).
Cycle row_bus_cycles(const CheckerTiming& t, const IssuedCommand& command) {
  if (!command.uses_bus) return 0;
  switch (command.command) {
    case DramCommand::act: return t.act_cycles;
    case DramCommand::pre: return t.pre_cycles;
    case DramCommand::ref_all:
    case DramCommand::ref_bank: return 1;
    default: return 0;
  }
}

// Random reads of `bursts` bursts on both pseudo-channels; pseudo-channel 1 gets none during [idle_from, idle_to),
// so its refreshes catch up when it is next served. Returns the row-bus overlaps found.
std::size_t overlaps(const std::string& name, RefreshMode refresh, std::uint32_t bursts, Cycle idle_from,
                     Cycle idle_to) {
  CAPTURE(name);
  const auto standard = test::standard(name);
  REQUIRE(standard.separate_row_bus);
  std::array<DramChannel, 2> channels{DramChannel(standard, test::policy(PagePolicy::open, refresh)),
                                      DramChannel(standard, test::policy(PagePolicy::open, refresh))};
  channels[1].share_command_buses(channels[0]);
  std::array<std::vector<IssuedCommand>, 2> logs;
  for (std::size_t c = 0; c < 2; ++c) channels[c].set_command_log(&logs[c]);

  std::mt19937_64 random(11);
  std::array<std::vector<test::TestRequest>, 2> requests;
  for (std::uint32_t i = 0; i < 8000; ++i) {
    const auto c = static_cast<std::size_t>(random() % 2);
    test::TestRequest request;
    request.arrival = static_cast<Cycle>(i) * 2;
    request.bank = static_cast<std::uint32_t>(random() % standard.banks());
    request.row = random() % 4096;
    request.bursts = bursts;
    if (c == 1 && request.arrival >= idle_from && request.arrival < idle_to) continue;
    requests[c].push_back(request);
  }
  // The loop of DramDevice::wake_step over two channels.
  std::array<std::size_t, 2> next{0, 0};
  Cycle now = 0;
  const auto pending = [&](std::size_t c) { return next[c] < requests[c].size() || channels[c].has_work(); };
  while (pending(0) || pending(1)) {
    Cycle wake = kNever;
    for (std::size_t c = 0; c < 2; ++c) {
      auto& channel = channels[c];
      const auto& queue = requests[c];
      channel.release_until(now);
      while (next[c] < queue.size() && queue[next[c]].arrival <= now && channel.has_space(false)) {
        const auto& r = queue[next[c]];
        channel.enqueue(Segment{next[c], r.row, r.arrival, r.bank, r.bursts, r.is_write});
        ++next[c];
      }
      while (channel.has_work() && channel.decision_cycle() <= now) (void)channel.decide(now);
      if (channel.has_work()) wake = std::min(wake, channel.decision_cycle());
      if (next[c] < queue.size())
        wake = std::min({wake, std::max(now + 1, queue[next[c]].arrival), std::max(now + 1, channel.next_release())});
    }
    now = std::max(now + 1, wake == kNever ? now + 1 : wake);
  }
  for (auto& channel : channels) channel.finish(now);

  const auto t = CheckerTiming::from(standard);
  std::vector<BusUse> uses;
  for (std::size_t c = 0; c < 2; ++c) {
    for (const auto& command : logs[c]) {
      const Cycle cycles = row_bus_cycles(t, command);
      if (cycles > 0) uses.push_back(BusUse{command.at, cycles, c, command.command});
    }
  }
  REQUIRE(uses.size() > 8000);
  std::stable_sort(uses.begin(), uses.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  std::size_t found = 0;
  for (std::size_t i = 0; i + 1 < uses.size(); ++i) {
    if (uses[i].at + uses[i].cycles <= uses[i + 1].at) continue;
    if (found++ < 4) {
      MESSAGE("row bus: pseudo-channel ", uses[i].channel, " command ", static_cast<int>(uses[i].command), " at ",
              uses[i].at, " overlaps pseudo-channel ", uses[i + 1].channel, " command ",
              static_cast<int>(uses[i + 1].command), " at ", uses[i + 1].at);
    }
  }
  return found;
}

TEST_CASE("two HBM2 pseudo-channels never take one row-bus cycle: random reads, all-bank refresh") {
  CHECK(overlaps("HBM2-2000", RefreshMode::all_bank, 2, 0, 0) == 0);
}
TEST_CASE("two HBM2 pseudo-channels never take one row-bus cycle: per-bank refresh, one idle for a while") {
  CHECK(overlaps("HBM2-2000", RefreshMode::per_bank, 2, 4000, 12000) == 0);
}
TEST_CASE("two HBM2 pseudo-channels never take one row-bus cycle: all-bank refresh, one idle for a while") {
  CHECK(overlaps("HBM2-2000", RefreshMode::all_bank, 2, 4000, 12000) == 0);
}
TEST_CASE("two HBM3 pseudo-channels never take one row-bus cycle: random reads, per-bank refresh") {
  CHECK(overlaps("HBM3-6400", RefreshMode::per_bank, 1, 3000, 9000) == 0);
}

TEST_CASE("two pseudo-channels without refresh never take one row-bus cycle: decisions alone come in cycle order") {
  CHECK(overlaps("HBM2-2000", RefreshMode::none, 2, 4000, 12000) == 0);
  CHECK(overlaps("HBM3-6400", RefreshMode::none, 1, 4000, 12000) == 0);
}
}  // namespace
}  // namespace roofsim::dram
