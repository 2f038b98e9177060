// Scheduling policies of a channel: FR-FCFS row hits first, FCFS arrival order, the starvation cap, write drain with
// watermarks, and the row policies' effect on the bank state.
#include <doctest/doctest.h>

#include "models/dram/dram_channel.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

using test::TestRequest;

TEST_CASE("FR-FCFS serves a younger row hit before an older miss, FCFS keeps arrival order") {
  const auto standard = test::standard("HBM2-2000");
  const std::vector<TestRequest> requests = {{0, 0, 1}, {0, 0, 2}, {0, 0, 1}};
  DramChannel frfcfs(standard, test::policy(PagePolicy::open, RefreshMode::none, DramScheduler::frfcfs));
  const auto ready_first = test::run_channel(frfcfs, requests);
  CHECK(ready_first[2].done < ready_first[1].done);
  CHECK(frfcfs.counters().row_hits == 1);
  DramChannel fcfs(standard, test::policy(PagePolicy::open, RefreshMode::none, DramScheduler::fcfs));
  const auto in_order = test::run_channel(fcfs, requests);
  CHECK(in_order[1].done < in_order[2].done);
  CHECK(fcfs.counters().row_hits == 0);
  CHECK(fcfs.counters().row_conflicts == 2);
}

TEST_CASE("the FR-FCFS cap: an old miss waits for at most `cap` younger row hits") {
  const auto standard = test::standard("HBM2-2000");
  auto policy = test::policy();
  policy.frfcfs_cap = 2;
  std::vector<TestRequest> requests = {{0, 0, 1}, {0, 0, 2}};
  for (int i = 0; i < 10; ++i) requests.push_back(TestRequest{0, 0, 1});
  DramChannel channel(standard, policy);
  const auto done = test::run_channel(channel, requests);
  // Request 0 opens row 1; the miss (request 1) is passed over by two hits, then goes.
  CHECK(done[1].done > done[3].done);
  CHECK(done[1].done < done[4].done);
}

TEST_CASE("writes wait below the high watermark while reads are queued, then drain") {
  const auto standard = test::standard("HBM2-2000");
  auto policy = test::policy();
  policy.write_high = 8;
  policy.write_low = 2;
  std::vector<TestRequest> requests;
  for (std::uint32_t i = 0; i < 5; ++i) requests.push_back(TestRequest{0, i, 3, 1, true});
  for (std::uint32_t i = 0; i < 20; ++i) requests.push_back(TestRequest{0, 8 + i % 8, 4, 1, false});
  DramChannel channel(standard, policy);
  const auto done = test::run_channel(channel, requests);
  Cycle last_read = 0, first_write = kNever;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].is_write) {
      first_write = std::min(first_write, done[i].done);
    } else {
      last_read = std::max(last_read, done[i].done);
    }
  }
  CHECK(first_write > last_read);  // five writes stay below write_high = 8 while reads wait
  CHECK(channel.counters().write_segments == 5);

  // Twelve writes reach the high watermark: the channel drains down to write_low before serving the reads.
  std::vector<TestRequest> many;
  for (std::uint32_t i = 0; i < 12; ++i) many.push_back(TestRequest{0, i % 8, 3, 1, true});
  for (std::uint32_t i = 0; i < 4; ++i) many.push_back(TestRequest{0, 8 + i, 4, 1, false});
  DramChannel draining(standard, policy);
  const auto drained = test::run_channel(draining, many);
  std::size_t writes_before_first_read = 0;
  Cycle first_read = kNever;
  for (std::size_t i = 12; i < many.size(); ++i) first_read = std::min(first_read, drained[i].done);
  for (std::size_t i = 0; i < 12; ++i) writes_before_first_read += drained[i].done < first_read ? 1 : 0;
  CHECK(writes_before_first_read == 12 - policy.write_low);
}

TEST_CASE("row policies: open keeps the row, closed precharges after every access, adaptive while hits wait") {
  const auto standard = test::standard("HBM2-2000");
  DramChannel open(standard, test::policy(PagePolicy::open));
  (void)test::run_channel(open, {{0, 4, 9}});
  CHECK(open.open_row(4) == std::optional<std::uint64_t>(9));
  DramChannel closed(standard, test::policy(PagePolicy::closed));
  (void)test::run_channel(closed, {{0, 4, 9}, {0, 4, 9}});
  CHECK_FALSE(closed.open_row(4).has_value());
  CHECK(closed.counters().acts == 2);
  DramChannel adaptive(standard, test::policy(PagePolicy::adaptive));
  (void)test::run_channel(adaptive, {{0, 4, 9}, {0, 4, 9}});
  CHECK_FALSE(adaptive.open_row(4).has_value());
  CHECK(adaptive.counters().acts == 1);  // the second request was queued when the first ran: the row stayed open
}

}  // namespace
}  // namespace roofsim::dram
