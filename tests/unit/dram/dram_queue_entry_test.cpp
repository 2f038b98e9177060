// A request holds its queue entry until its last column command has issued, and the refresh mode a device runs by
// default is the one its standard file names.
#include <doctest/doctest.h>

#include "models/dram/dram_channel.h"
#include "sim/config/hardware_params.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

TEST_CASE("a committed request keeps its queue entry until its RD issues, tRCD after its ACT") {
  const auto standard = test::standard("HBM2-2000");
  auto policy = test::policy();
  policy.read_queue = 2;
  DramChannel channel(standard, policy);
  // Two one-burst reads to closed banks of different bank groups: the first decision commits ACT at 0 and RD at tRCD.
  channel.enqueue(Segment{0, 7, 0, 0, 1, false});
  channel.enqueue(Segment{1, 7, 0, 4, 1, false});
  CHECK_FALSE(channel.has_space(false));
  const auto first = channel.decide(0);
  REQUIRE(first.size() == 1);
  const Cycle rd = static_cast<Cycle>(standard.timing.tRCD);
  CHECK(first[0].done == rd + standard.timing.tCL + 2);  // BL4 at 2 beats per CK: two cycles of data
  CHECK(channel.next_release() == rd);
  channel.release_until(rd - 1);
  CHECK_FALSE(channel.has_space(false));  // one queued, one held
  channel.release_until(rd);
  CHECK(channel.has_space(false));
  CHECK_FALSE(channel.has_space(false, 2));
  CHECK(channel.next_release() == kNever);
}

TEST_CASE("the default refresh mode follows the standard file: per-bank where it has REFsb/REFpb, else all-bank") {
  auto dram = default_dram_params();
  CHECK(dram.refresh == RefreshMode::standard);
  dram.standard = test::standard("HBM2-2000");
  CHECK(dram.resolved_refresh() == RefreshMode::per_bank);
  CHECK(ChannelPolicy::from(dram).refresh == RefreshMode::per_bank);
  dram.standard = test::standard("DDR4-3200");
  CHECK(dram.resolved_refresh() == RefreshMode::all_bank);
  dram.refresh = RefreshMode::none;
  CHECK(dram.resolved_refresh() == RefreshMode::none);
}

}  // namespace
}  // namespace roofsim::dram
