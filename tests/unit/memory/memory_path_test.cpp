#include <array>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "models/dram/simple_dram.h"
#include "models/memory/memory_system.h"
#include "sim/config/model_params.h"
#include "tests/scenario/test_device.h"

using namespace roofsim;

namespace {
struct Recorder final : ChunkCompletionSink {
  void chunk_done(std::uint64_t tag, TimeFs done_fs, TimeFs unloaded_fs) override {
    last_tag = tag;
    done = done_fs;
    unloaded = unloaded_fs;
  }
  std::uint64_t last_tag = 0;
  TimeFs done = 0, unloaded = 0;
};

// A one-range chunk; the range lives in static storage for the duration of the call.
ChunkView chunk_at(Bytes address, Bytes bytes) {
  static AddressRange range;
  range = AddressRange{address, bytes};
  return ChunkView{&range, 1, bytes, false};
}
}  // namespace

TEST_CASE("a read misses the L2, comes from DRAM, and hits the second time at the L2 latency") {
  test::TestDevice spec;
  spec.units = 2;
  spec.l2_latency_s = 200e-9;
  spec.dram_latency_s = 600e-9;
  const auto hw = spec.build();
  SimpleDram dram(SimpleDramParams::from(*hw.dram));
  MemorySystem memory(memory_system_params(hw), &dram);
  REQUIRE(memory.level_names() == std::vector<std::string>{"smem", "l2", "dram"});
  std::vector<Bytes> op_bytes(3, 0);
  Recorder sink;
  memory.read(0, chunk_at(1 << 20, 4096), 0, op_bytes.data(), sink, 7);
  CHECK(sink.last_tag == 7);
  CHECK(sink.done >= seconds_to_fs(600e-9));
  memory.read(1, chunk_at(1 << 20, 4096), seconds_to_fs(1e-6), op_bytes.data(), sink, 8);
  CHECK(sink.done - seconds_to_fs(1e-6) < seconds_to_fs(300e-9));
  CHECK(sink.done - seconds_to_fs(1e-6) >= seconds_to_fs(200e-9));
  CHECK(op_bytes[0] == 8192);
  CHECK(op_bytes[1] == 8192);
  CHECK(op_bytes[2] == 4096);
  const auto counters = memory.counters();
  CHECK(counters[1].hit_bytes == 4096);
  CHECK(counters[1].miss_bytes == 4096);
  CHECK_NOTHROW(memory.check_conservation());
}

TEST_CASE("writes go through to DRAM and make later reads of the data hit") {
  test::TestDevice spec;
  const auto hw = spec.build();
  SimpleDram dram(SimpleDramParams::from(*hw.dram));
  MemorySystem memory(memory_system_params(hw), &dram);
  std::vector<Bytes> op_bytes(3, 0);
  Recorder sink;
  memory.write(0, chunk_at(0, 4096), 0, op_bytes.data(), sink, 1);
  CHECK(dram.bytes_written() == 4096);
  memory.read(0, chunk_at(0, 4096), sink.done, op_bytes.data(), sink, 2);
  CHECK(dram.bytes_read() == 0);
  CHECK_NOTHROW(memory.check_conservation());
}

TEST_CASE("an SRAM-only device serves everything from its outermost level") {
  test::TestDevice spec;
  spec.dram = false;
  spec.l2 = false;
  auto hw = spec.build();
  MemorySystem memory(memory_system_params(hw), nullptr);
  REQUIRE(memory.level_names() == std::vector<std::string>{"smem"});
  std::vector<Bytes> op_bytes(1, 0);
  Recorder sink;
  memory.read(0, chunk_at(0, 4096), 0, op_bytes.data(), sink, 1);
  CHECK(op_bytes[0] == 4096);
  CHECK(memory.counters()[0].hit_bytes == 4096);
  CHECK_NOTHROW(memory.check_conservation());
}

TEST_CASE("L2 banks serve in parallel: a bank's bandwidth is the level's share") {
  test::TestDevice spec;
  spec.units = 1;
  spec.smem = false;
  spec.l2_banks = 4;
  spec.l2_bytes_per_cycle = 64;  // 16 B/cycle per bank at 1 GHz: 16 GB/s
  const auto hw = spec.build();
  MemorySystem memory(memory_system_params(hw), nullptr);
  std::vector<Bytes> op_bytes(1, 0);
  Recorder sink;
  // 64 KiB over 512 lines hashed onto 4 banks: the busiest bank takes about a quarter, not all of it.
  memory.read(0, chunk_at(0, 65536), 0, op_bytes.data(), sink, 1);
  const double seconds = fs_to_seconds(sink.done);
  CHECK(seconds < 0.35 * 65536 / 16e9);
  CHECK(seconds >= 0.25 * 65536 / 16e9);
}

namespace {
// A DRAM that serves its requests when told to, in order, so that the bytes in flight can be looked at.
struct HeldDram final : DramInterface {
  void submit(const DramRequest& request, DramCompletionSink& sink) override {
    held.push_back({request, &sink});
    (request.write ? written : read) += request.bytes;
  }
  void serve_one(TimeFs at_fs) {
    const auto [request, sink] = held.front();
    held.erase(held.begin());
    sink->dram_done(request.tag, at_fs);
  }
  [[nodiscard]] Bytes bytes_read() const override { return read; }
  [[nodiscard]] Bytes bytes_written() const override { return written; }
  [[nodiscard]] std::uint32_t channels() const override { return 1; }
  [[nodiscard]] TimeFs unloaded_fs(Bytes /*address*/, Bytes /*bytes*/) const override { return 1000; }
  std::vector<std::pair<DramRequest, DramCompletionSink*>> held;
  Bytes read = 0, written = 0;
};
}  // namespace

TEST_CASE("the bytes at DRAM are those of chunks whose DRAM parts are not all served") {
  test::TestDevice spec;
  const auto hw = spec.build();
  HeldDram dram;
  MemorySystem memory(memory_system_params(hw), &dram);
  std::vector<Bytes> op_bytes(3, 0);
  Recorder sink;
  // A read that misses in two ranges far apart (two DRAM parts), then a write.
  static const std::array<AddressRange, 2> ranges = {AddressRange{0, 4096}, AddressRange{1 << 24, 2048}};
  memory.read(0, ChunkView{ranges.data(), ranges.size(), 6144, false}, 0, op_bytes.data(), sink, 1);
  memory.write(0, chunk_at(1 << 26, 1024), 0, op_bytes.data(), sink, 2);
  REQUIRE(dram.held.size() == 3);
  CHECK(memory.bytes_at_dram() == 6144 + 1024);
  // The read's first part is back: the chunk still waits for its second.
  dram.serve_one(5000);
  CHECK(memory.bytes_at_dram() == 6144 + 1024);
  dram.serve_one(6000);
  CHECK(sink.last_tag == 1);
  CHECK(memory.bytes_at_dram() == 1024);
  dram.serve_one(7000);
  CHECK(sink.last_tag == 2);
  CHECK(memory.bytes_at_dram() == 0);
}
