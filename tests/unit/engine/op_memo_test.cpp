#include "sim/engine/op_memo.h"

#include <doctest/doctest.h>

namespace roofsim {

TEST_CASE("residency_class rounds resident / total to the nearest 1/64, ties up, and clips at the whole") {
  CHECK(residency_class(0, 1000) == 0);
  CHECK(residency_class(1000, 1000) == kResidencyClasses);
  CHECK(residency_class(5000, 1000) == kResidencyClasses);
  CHECK(residency_class(500, 1000) == 32);
  // 1/128 of the whole is the boundary between class 0 and 1: just below stays 0, at it rounds up.
  CHECK(residency_class(127, 128 * 128) == 0);
  CHECK(residency_class(128, 128 * 128) == 1);
  CHECK(residency_class(7, 0) == 0);
}

TEST_CASE("valid_bytes_in counts the valid sectors' bytes inside a range, clipped at both ends") {
  // A 4 KiB block at 8192 with 128-byte sectors 0, 1 and 31 valid.
  const std::uint64_t valid = 0b11ULL | (1ULL << 31);
  CHECK(valid_bytes_in(8192, valid, 128, 0, 1ULL << 20) == 3 * 128);
  CHECK(valid_bytes_in(8192, valid, 128, 8192 + 64, 128) == 128);            // half of sector 0, half of sector 1
  CHECK(valid_bytes_in(8192, valid, 128, 8192 + 256, 31 * 128 - 256) == 0);  // sectors 2..30 hold nothing
  CHECK(valid_bytes_in(8192, valid, 128, 8192 + 31 * 128, 64) == 64);
}

TEST_CASE("for_each_valid_run gives each run of adjacent valid sectors once, clipped, and skips runs outside") {
  // 128-byte sectors 0-1, 5 and 62-63 valid in a block that starts 256 bytes before its tensor (at 1024).
  const std::uint64_t valid = 0b11ULL | (1ULL << 5) | (3ULL << 62);
  std::vector<std::pair<Bytes, Bytes>> runs;
  for_each_valid_run(768, valid, 128, 1024, 768 + 63 * 128 + 64,
                     [&](Bytes lo, Bytes hi) { runs.emplace_back(lo, hi); });
  // Sectors 0-1 end at the tensor's start: nothing; sector 5; sectors 62-63 cut at the clip's end.
  const std::vector<std::pair<Bytes, Bytes>> expected = {{768 + 5 * 128, 768 + 6 * 128},
                                                         {768 + 62 * 128, 768 + 63 * 128 + 64}};
  CHECK(runs == expected);
  runs.clear();
  // A block below address 0 (a record's offset before a tensor at 0) clips to 0; all 64 sectors are one run.
  for_each_valid_run(-256, ~0ULL, 64, 0, 1 << 20, [&](Bytes lo, Bytes hi) { runs.emplace_back(lo, hi); });
  CHECK(runs == std::vector<std::pair<Bytes, Bytes>>{{0, 64 * 64 - 256}});
}

TEST_CASE("the memo store serves the median of three records in a row once two of them agree within 1%") {
  OpMemoStore store(3);
  const auto record_of = [](TimeFs duration_fs) {
    auto record = std::make_unique<OpRecord>();
    record->duration_fs = duration_fs;
    return record;
  };
  store.insert("gemm|a", record_of(1000));
  store.insert("gemm|a", record_of(1030));
  CHECK(store.find("gemm|a") == nullptr);   // two instances: not yet
  store.insert("gemm|a", record_of(1100));  // median 1030: 1000 is 2.9% and 1100 6.8% from it
  CHECK(store.find("gemm|a") == nullptr);
  store.insert("gemm|a", record_of(1035));  // the last three, 1030 1100 1035: median 1035, 1030 0.48% from it
  REQUIRE(store.find("gemm|a") != nullptr);
  CHECK(store.find("gemm|a")->duration_fs == 1035);  // the median, not 1030, the first of the two that agree
  store.insert("gemm|a", record_of(5000));           // once agreed, the record stays
  CHECK(store.find("gemm|a")->duration_fs == 1035);
  CHECK(store.find("gemm|b") == nullptr);
  CHECK(store.size() == 1);

  // Two in a row that agree are not enough: the median of the three is replayed.
  store.insert("norm|a", record_of(1000));
  store.insert("norm|a", record_of(1009));
  CHECK(store.find("norm|a") == nullptr);
  store.insert("norm|a", record_of(1005));
  REQUIRE(store.find("norm|a") != nullptr);
  CHECK(store.find("norm|a")->duration_fs == 1005);
}

TEST_CASE("by default the memo store replays the median of five instances in a row") {
  OpMemoStore store;
  const auto record_of = [](TimeFs duration_fs) {
    auto record = std::make_unique<OpRecord>();
    record->duration_fs = duration_fs;
    return record;
  };
  for (const TimeFs t : {1040, 1000, 1005, 1030}) {
    store.insert("gemm|a", record_of(t));
    CHECK(store.find("gemm|a") == nullptr);  // 1000 and 1005 agree, but fewer than five instances
  }
  store.insert("gemm|a", record_of(1020));  // 1000 1005 1020 1030 1040: median 1020, 1030 0.98% from it
  REQUIRE(store.find("gemm|a") != nullptr);
  CHECK(store.find("gemm|a")->duration_fs == 1020);

  // The first three within 0.1% of their median: that median, without waiting for five.
  store.insert("up|a", record_of(100000));
  store.insert("up|a", record_of(100090));
  CHECK(store.find("up|a") == nullptr);
  store.insert("up|a", record_of(100050));  // median 100050: 100000 0.05% and 100090 0.04% from it
  REQUIRE(store.find("up|a") != nullptr);
  CHECK(store.find("up|a")->duration_fs == 100050);
  // Not if one of them is further (100000 100050 100200: 0.15%): then five are waited for.
  for (const TimeFs t : {100000, 100050, 100200}) store.insert("down|a", record_of(t));
  CHECK(store.find("down|a") == nullptr);
  store.insert("down|a", record_of(100040));  // the last three, 100050 100200 100040: still 0.15%
  CHECK(store.find("down|a") == nullptr);
  // A first instance that differs (a cold cache) delays the median by one instance, not to five.
  for (const TimeFs t : {100300, 100000, 100050}) store.insert("proj|a", record_of(t));
  CHECK(store.find("proj|a") == nullptr);     // median 100050, 100300 0.25% from it
  store.insert("proj|a", record_of(100040));  // the last three, 100000 100050 100040: median 100040, all within 0.1%
  REQUIRE(store.find("proj|a") != nullptr);
  CHECK(store.find("proj|a")->duration_fs == 100040);
}

TEST_CASE(
    "fast-forwarded instances settle within the fast-forward's tolerance, two if skipped inside tiles, else three") {
  OpMemoStore store;
  const auto record_of = [](TimeFs duration_fs, bool fast_forwarded, bool inside_tiles = true) {
    auto record = std::make_unique<OpRecord>();
    record->duration_fs = duration_fs;
    record->fast_forwarded = fast_forwarded;
    record->forwarded_inside_tiles = fast_forwarded && inside_tiles;
    return record;
  };
  // Two fast-forwarded inside tiles in a row 0.3% apart, within 1/256 (0.39%) but not 0.1%: the longer is replayed.
  store.insert("forwarded|a", record_of(100300, true));
  CHECK(store.find("forwarded|a") == nullptr);
  store.insert("forwarded|a", record_of(100000, true));
  REQUIRE(store.find("forwarded|a") != nullptr);
  CHECK(store.find("forwarded|a")->duration_fs == 100300);
  // Two fast-forwarded 0.5% apart do not settle; the next with the second of them does.
  store.insert("forwarded|b", record_of(100000, true));
  store.insert("forwarded|b", record_of(100500, true));
  CHECK(store.find("forwarded|b") == nullptr);
  store.insert("forwarded|b", record_of(100300, true));  // the last two, 100500 100300, 0.2% apart
  REQUIRE(store.find("forwarded|b") != nullptr);
  CHECK(store.find("forwarded|b")->duration_fs == 100500);
  // Whole waves skipped only: two do not settle, three within 1/256 of their median do.
  store.insert("waves|a", record_of(100000, true, false));
  store.insert("waves|a", record_of(100300, true, false));
  CHECK(store.find("waves|a") == nullptr);
  store.insert("waves|a", record_of(100150, true, false));
  REQUIRE(store.find("waves|a") != nullptr);
  CHECK(store.find("waves|a")->duration_fs == 100150);
  for (const TimeFs t : {100000, 100300, 100150}) store.insert("simulated|a", record_of(t, false));
  CHECK(store.find("simulated|a") == nullptr);
  // One of the three simulated whole: the tighter bound holds for them all.
  store.insert("mixed|a", record_of(100000, true));
  store.insert("mixed|a", record_of(100300, false));
  store.insert("mixed|a", record_of(100150, true));
  CHECK(store.find("mixed|a") == nullptr);
  // Further apart than the fast-forward's tolerance (0.5%): five are waited for.
  for (const TimeFs t : {100000, 101000, 100500}) store.insert("spread|a", record_of(t, true));
  CHECK(store.find("spread|a") == nullptr);
}

TEST_CASE("the memo store counts agreement only between records of one recorder") {
  OpMemoStore store(3);
  const auto record_of = [](TimeFs duration_fs) {
    auto record = std::make_unique<OpRecord>();
    record->duration_fs = duration_fs;
    return record;
  };
  const int device_a = 0, device_b = 0;
  store.insert("norm|x", record_of(1000), &device_a);
  store.insert("norm|x", record_of(1000), &device_b);  // another device's identical instance: not a second instance
  store.insert("norm|x", record_of(1000), &device_b);
  CHECK(store.find("norm|x") == nullptr);
  store.insert("norm|x", record_of(2000), &device_b);  // nor does its disagreement count
  store.insert("norm|x", record_of(1005), &device_a);
  CHECK(store.find("norm|x") == nullptr);
  store.insert("norm|x", record_of(1002), &device_a);
  REQUIRE(store.find("norm|x") != nullptr);
  CHECK(store.find("norm|x")->duration_fs == 1002);
}

TEST_CASE("the memo store compares instances at other clocks by their times at the newest's clock course") {
  OpMemoStore store(3);
  // Compute-bound (all of the units' time computing): at 1.5 GHz the first's 3000 fs of 1 GHz cycles take 2000 fs.
  const auto record_of = [](TimeFs duration_fs, Hertz clock_hz) {
    auto record = std::make_unique<OpRecord>();
    record->duration_fs = duration_fs;
    record->work = ClockScaledWork({{duration_fs, clock_hz}}, UnitTimeShares{1.0, 0.0, 0.0});
    return record;
  };
  store.insert("attn|a", record_of(3000, 1e9));
  store.insert("attn|a", record_of(1995, 1.5e9));
  // At 1.5 GHz: 2000, 1995 and 1960 fs, median 1995, 2000 0.25% from it. As recorded (3000, 1995, 1960) no two would
  // agree with the median.
  store.insert("attn|a", record_of(1960, 1.5e9));
  REQUIRE(store.find("attn|a") != nullptr);
  CHECK(store.find("attn|a")->duration_fs == 1995);

  store.insert("qkv|a", record_of(3000, 1e9));
  store.insert("qkv|a", record_of(2900, 1.5e9));  // 4350 at 1 GHz
  store.insert("qkv|a", record_of(2950, 1e9));    // at 1 GHz: 3000, 4350, 2950: median 3000, 2950 1.7% from it
  CHECK(store.find("qkv|a") == nullptr);
}

}  // namespace roofsim
