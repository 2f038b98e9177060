#include <doctest/doctest.h>

#include "models/dram/simple_dram.h"
#include "tests/support/relative.h"

using namespace roofsim;

namespace {
SimpleDramParams four_channels() {
  return SimpleDramParams{4, 10e9, 100e-9, 256};
}
}  // namespace

TEST_CASE("a lone request takes its transfer on the channels it spans plus the latency") {
  SimpleDram dram(four_channels());
  // 1 KiB from address 0 covers 4 interleave units of 256 B, one per channel: 256 B at 10 GB/s = 25.6 ns each.
  const TimeFs done = dram.access(0, 1024, false, 0);
  CHECK(done == seconds_to_fs(25.6e-9) + seconds_to_fs(100e-9));
  CHECK(dram.bytes_read() == 1024);
  for (std::uint32_t c = 0; c < 4; ++c) CHECK(dram.channel_bytes()[c] == 256);
}

TEST_CASE("requests to one channel queue in FIFO order while other channels are independent") {
  SimpleDram dram(four_channels());
  const TimeFs first = dram.access(0, 256, false, 0);      // channel 0
  const TimeFs second = dram.access(1024, 256, false, 0);  // channel 0 again (1024 / 256 = 4 -> 0)
  const TimeFs other = dram.access(256, 256, true, 0);     // channel 1
  CHECK(second - first == seconds_to_fs(25.6e-9));
  CHECK(other == first);
  CHECK(dram.bytes_written() == 256);
}

TEST_CASE("a long stream moves at the sum of the channels' bandwidths") {
  SimpleDram dram(four_channels());
  TimeFs done = 0;
  const Bytes chunk = 4096;
  const std::uint64_t chunks = 1000;
  for (std::uint64_t i = 0; i < chunks; ++i) done = std::max(done, dram.access(i * chunk, chunk, false, 0));
  const double seconds = fs_to_seconds(done) - 100e-9;
  CHECK(test::within(static_cast<double>(chunk * chunks) / seconds, 40e9, 1e-6));
}

TEST_CASE("unaligned ranges split exactly over the channels") {
  SimpleDram dram(four_channels());
  (void)dram.access(100, 2000, false, 0);
  Bytes total = 0;
  for (const auto b : dram.channel_bytes()) total += b;
  CHECK(total == 2000);
  // 100..255 (156 B) on 0, 256..511 on 1, 512..767 on 2, 768..1023 on 3, 1024..1279 on 0, 1280..1535 on 1,
  // 1536..1791 on 2, 1792..2047 on 3, 2048..2099 (52 B) on 0.
  CHECK(dram.channel_bytes()[0] == 156 + 256 + 52);
  CHECK(dram.channel_bytes()[1] == 512);
}

TEST_CASE("the channel interleave follows the address mapping") {
  DramStandardParams standard;
  standard.bus_width_bits = 64;
  standard.timing.burst_length = 8;  // 64 B bursts
  standard.row_bytes = 2048;
  standard.bank_groups = 4;
  standard.banks_per_group = 4;
  CHECK(channel_interleave_bytes("RoBaBgCoCh", standard) == 64);
  CHECK(channel_interleave_bytes("RoBaBgChCo", standard) == 2048);
  CHECK(channel_interleave_bytes("RoChBaBgCo", standard) == 2048 * 16);
}
