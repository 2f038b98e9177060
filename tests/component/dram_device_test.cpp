// The DramDevice module between a stub source and the statistics: exact unloaded timing through the module, and the
// bandwidth, row locality and policy effects a DRAM model must show, against closed forms from the standards' timing.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <systemc>

#include "models/dram/dram_device.h"
#include "models/dram/dram_stats.h"
#include "models/dram/dram_timing_checker.h"
#include "sim/config/dram_params.h"
#include "tests/support/test_paths.h"

namespace roofsim::dram {
namespace {

DramParams params_of(const std::string& standard, const std::string& mapping, PagePolicy page = PagePolicy::open,
                     RefreshMode refresh = RefreshMode::all_bank) {
  DramParams dram;
  dram.standard = load_dram_standard(roofsim::test::config_path("dram/" + standard + ".toml"));
  dram.stacks = 1;
  dram.model = DramModel::detailed;
  dram.mapping = mapping;
  dram.page_policy = page;
  dram.refresh = refresh;
  dram.read_queue = dram.write_queue = 64;
  dram.write_high = 48;
  dram.write_low = 16;
  dram.frfcfs_cap = 16;
  return dram;
}

class ListSource final : public DramRequestSource {
 public:
  explicit ListSource(std::vector<DramRequest> requests) : requests_(std::move(requests)) {}
  [[nodiscard]] std::optional<DramRequest> peek() const override {
    if (next_ >= requests_.size()) return std::nullopt;
    return requests_[next_];
  }
  void pop() override { ++next_; }

 private:
  std::vector<DramRequest> requests_;
  std::size_t next_ = 0;
};

struct Setup {
  DramParams dram;
  std::uint32_t channels = 1;
  std::vector<DramRequest> requests;
};

// Several devices in one elaboration (SystemC allows one per process), each on its own requests.
std::vector<DramSummary> run_all(std::vector<Setup> setups) {
  std::vector<std::unique_ptr<ListSource>> sources;
  std::vector<std::unique_ptr<DramDevice>> devices;
  for (std::size_t i = 0; i < setups.size(); ++i) {
    sources.push_back(std::make_unique<ListSource>(std::move(setups[i].requests)));
    const std::string name = "dram" + std::to_string(i);
    devices.push_back(std::make_unique<DramDevice>(name.c_str(), setups[i].dram, setups[i].channels));
    devices.back()->attach_source(*sources.back());
  }
  sc_core::sc_start();
  std::vector<DramSummary> summaries;
  for (std::size_t i = 0; i < setups.size(); ++i)
    summaries.push_back(summarize(devices[i]->collect(), setups[i].dram.standard));
  return summaries;
}

DramSummary run(const DramParams& dram, std::uint32_t channels, std::vector<DramRequest> requests) {
  return run_all({Setup{dram, channels, std::move(requests)}}).front();
}

std::vector<DramRequest> stream(Bytes total, Bytes size = 64, Bytes stride = 64) {
  std::vector<DramRequest> requests;
  for (Bytes i = 0; i < total / size; ++i) requests.push_back(DramRequest{i * stride, size, false});
  return requests;
}

std::vector<DramRequest> random_reads(std::size_t count, double spacing_s = 0) {
  std::mt19937_64 random(3);
  std::vector<DramRequest> requests;
  for (std::size_t i = 0; i < count; ++i) {
    requests.push_back(
        DramRequest{(random() % (Bytes{1} << 24)) * 64, 64, false, seconds_to_fs(spacing_s * static_cast<double>(i))});
  }
  return requests;
}

struct Driver : sc_core::sc_module, DramCompletionSink {
  SC_HAS_PROCESS(Driver);
  Driver(const sc_core::sc_module_name& name, DramDevice& device) : sc_core::sc_module(name), device_(device) {
    SC_THREAD(drive);
  }
  void drive() {
    wait(sc_core::sc_time(100, sc_core::SC_NS));
    DramRequest request;
    request.address = 0x12340;
    request.bytes = 32;
    REQUIRE(device_.try_submit(request, this, &done_event));
    wait(done_event);
    woke = sc_core::sc_time_stamp();
  }
  void dram_done(std::uint64_t, TimeFs done_fs) override { reported = sc_core::sc_time::from_value(done_fs); }
  DramDevice& device_;
  sc_core::sc_event done_event;
  sc_core::sc_time reported, woke;
};

TEST_CASE("an unloaded read through the module completes after (tRCD + tCL + burst) x tCK, by callback and event") {
  const auto dram = params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::open, RefreshMode::none);
  DramDevice device("dram", dram, 1);
  Driver driver("driver", device);
  sc_core::sc_start();
  const auto t = CheckerTiming::from(dram.standard);
  const auto expected =
      sc_core::sc_time(100, sc_core::SC_NS) +
      sc_core::sc_time(static_cast<double>(t.tRCD + t.tCL + t.burst) * dram.standard.tck_s, sc_core::SC_SEC);
  CHECK(driver.reported == expected);
  CHECK(driver.woke == expected);
}

TEST_CASE("a request over two channels completes when both parts have, and counts once") {
  auto dram = params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::open, RefreshMode::none);
  // With the channel digit lowest, two consecutive bursts fall in two channels.
  const auto summaries = run_all({Setup{dram, 2, {DramRequest{0, 64, false}}}});
  const auto t = CheckerTiming::from(dram.standard);
  CHECK(summaries[0].row_misses == 2);
  // In cycles of tCK, so that the comparison is exact to a fraction of a cycle. The two are the pseudo-channels of
  // one channel: their ACTs take turns on its row command bus, the second act_cycles after the first.
  CHECK(summaries[0].read_latency.max_s / dram.standard.tck_s ==
        doctest::Approx(static_cast<double>(t.act_cycles + t.tRCD + t.tCL + t.burst)));
}

TEST_CASE("a sequential read stream on HBM2e with an interleaving mapping reaches 85-97% of pin bandwidth") {
  const auto dram = params_of("HBM2e-3200", "RoBaCoBgCh");
  const auto summary = run(dram, 4, stream(Bytes{8} << 20));
  MESSAGE("HBM2e stream: ", 100.0 * summary.bandwidth_fraction_of_peak, "% of pin bandwidth, row hits ",
          100.0 * summary.row_hit_rate, "%");
  CHECK(summary.bandwidth_fraction_of_peak >= 0.85);
  CHECK(summary.bandwidth_fraction_of_peak <= 0.97);
  CHECK(summary.row_hit_rate > 0.9);
}

TEST_CASE("per-bank refresh of idle banks costs a stream far less than all-bank refresh") {
  const auto summaries = run_all({
      Setup{params_of("HBM2e-3200", "RoBaCoBgCh", PagePolicy::open, RefreshMode::none), 1, stream(Bytes{4} << 20)},
      Setup{params_of("HBM2e-3200", "RoBaCoBgCh", PagePolicy::open, RefreshMode::all_bank), 1, stream(Bytes{4} << 20)},
      Setup{params_of("HBM2e-3200", "RoBaCoBgCh", PagePolicy::open, RefreshMode::per_bank), 1, stream(Bytes{4} << 20)},
  });
  const double none = summaries[0].bandwidth_bytes_per_s;
  const double all_bank_loss = 1.0 - summaries[1].bandwidth_bytes_per_s / none;
  const double per_bank_loss = 1.0 - summaries[2].bandwidth_bytes_per_s / none;
  MESSAGE("stream bandwidth lost to refresh: all-bank ", 100 * all_bank_loss, "%, per-bank ", 100 * per_bank_loss, "%");
  const auto standard = params_of("HBM2e-3200", "RoBaCoBgCh").standard;
  // All-bank: about tRFC / tREFI (plus closing and re-opening the rows); per-bank: the stream's four banks are
  // never the ones refreshed.
  CHECK(all_bank_loss >= static_cast<double>(standard.timing.tRFC) / standard.timing.tREFI);
  CHECK(per_bank_loss < 0.25 * all_bank_loss);
}

TEST_CASE("64-byte uniform random reads run at the rate the ACT constraints predict") {
  const auto dram = params_of("HBM2e-3200", "RoBaBgCoCh", PagePolicy::closed, RefreshMode::none);
  const auto summary = run(dram, 1, random_reads(20000));
  const auto t = CheckerTiming::from(dram.standard);
  // One ACT per 64-byte request; ACTs at most one per tRRD_S (bank groups alternating), four per tFAW, one per
  // tRC per bank, and no faster than the data bus moves 64 bytes.
  const double act_interval =
      std::max({static_cast<double>(t.tRRD_S), static_cast<double>(t.tFAW) / 4.0,
                static_cast<double>(t.tRC) / dram.standard.banks(), 64.0 / 32.0 * static_cast<double>(t.burst)});
  const double predicted = 64.0 / (act_interval * dram.standard.tck_s);
  MESSAGE("HBM2e random 64 B: ", summary.bandwidth_bytes_per_s / 1e9, " GB/s, ACT bound ", predicted / 1e9,
          " GB/s, pin ", summary.peak_bytes_per_s / 1e9, " GB/s");
  CHECK(summary.row_hit_rate < 0.01);
  CHECK(summary.bandwidth_bytes_per_s <= predicted * 1.001);
  CHECK(summary.bandwidth_bytes_per_s >= predicted * 0.8);
  CHECK(predicted < 0.7 * summary.peak_bytes_per_s);
}

TEST_CASE("open vs closed page: a stream prefers open, light random traffic prefers closed or adaptive") {
  const auto summaries = run_all({
      // DDR4: an ACT per 64-byte request is far slower than the bus (tFAW allows four per 34 cycles, the bus moves
      // 64 bytes per 4), so re-opening the row per request shows.
      Setup{params_of("DDR4-3200", "RoBaBgCoCh", PagePolicy::open), 1, stream(Bytes{1} << 20)},
      Setup{params_of("DDR4-3200", "RoBaBgCoCh", PagePolicy::closed), 1, stream(Bytes{1} << 20)},
      Setup{params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::open), 1, random_reads(2000, 100e-9)},
      Setup{params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::closed), 1, random_reads(2000, 100e-9)},
      Setup{params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::adaptive), 1, random_reads(2000, 100e-9)},
  });
  const auto& stream_open = summaries[0];
  const auto& stream_closed = summaries[1];
  MESSAGE("stream: open ", 100.0 * stream_open.bandwidth_fraction_of_peak, "%, closed ",
          100.0 * stream_closed.bandwidth_fraction_of_peak, "% of pin bandwidth");
  CHECK(stream_open.bandwidth_bytes_per_s > 3 * stream_closed.bandwidth_bytes_per_s);
  CHECK(stream_open.row_hit_rate > 0.9);
  CHECK(stream_closed.row_hit_rate < 0.1);
  // Light random load: an open row is almost always the wrong one, so open page pays tRP on the critical path.
  const auto t = CheckerTiming::from(params_of("HBM2-2000", "RoBaBgCoCh").standard);
  const double tck = params_of("HBM2-2000", "RoBaBgCoCh").standard.tck_s;
  const double open_latency = summaries[2].read_latency.p50_s, closed_latency = summaries[3].read_latency.p50_s;
  MESSAGE("random, one read per 100 ns: p50 latency open ", open_latency * 1e9, " ns, closed ", closed_latency * 1e9,
          " ns, adaptive ", summaries[4].read_latency.p50_s * 1e9, " ns");
  // A 64-byte read is two bursts to one bank: the second follows the first by tCCD_L. Compared in cycles of tCK.
  const Cycle second_burst = std::max(t.tCCD_L, t.burst);
  CHECK(closed_latency / tck == doctest::Approx(static_cast<double>(t.tRCD + second_burst + t.tCL + t.burst)));
  CHECK(open_latency / tck == doctest::Approx(static_cast<double>(t.tRP + t.tRCD + second_burst + t.tCL + t.burst)));
  CHECK(summaries[4].read_latency.avg_s < summaries[2].read_latency.avg_s);
}

TEST_CASE("address mapping: a stride that stays in one bank under RoBaBgCoCh spreads over all banks with :xor") {
  const auto plain = params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::open, RefreshMode::none);
  const auto permuted = params_of("HBM2-2000", "RoBaBgCoCh:xor", PagePolicy::open, RefreshMode::none);
  // One row per bank of every bank group apart: only the row digit changes under RoBaBgCoCh.
  const Bytes stride = plain.standard.row_bytes * plain.standard.banks();
  const auto summaries =
      run_all({Setup{plain, 1, stream(2000 * 64, 64, stride)}, Setup{permuted, 1, stream(2000 * 64, 64, stride)}});
  const auto banks_used = [](const DramSummary& summary) {
    return std::count_if(summary.acts_per_bank[0].begin(), summary.acts_per_bank[0].end(),
                         [](std::uint64_t acts) { return acts > 0; });
  };
  CHECK(banks_used(summaries[0]) == 1);
  CHECK(banks_used(summaries[1]) == static_cast<long>(plain.standard.banks()));
  MESSAGE("stride ", stride, " B: one bank ", summaries[0].bandwidth_bytes_per_s / 1e9, " GB/s, all banks ",
          summaries[1].bandwidth_bytes_per_s / 1e9, " GB/s");
  // One bank: one ACT per tRC; all banks: bound by tRRD/tFAW instead.
  const auto t = CheckerTiming::from(plain.standard);
  CHECK(summaries[0].bandwidth_bytes_per_s ==
        doctest::Approx(64.0 / (static_cast<double>(t.tRC) * plain.standard.tck_s)).epsilon(0.02));
  CHECK(summaries[1].bandwidth_bytes_per_s > 5 * summaries[0].bandwidth_bytes_per_s);
}

TEST_CASE("address mapping: a sequential stream over 16 pseudo-channels keeps its bandwidth under :hash") {
  // The hash permutes each channel period as a whole, so a stream still gives every channel one 4 KiB run per
  // period: the same ACTs and the same fraction of the pin rate as the linear order.
  const auto linear = params_of("HBM3-6400", "RoBaChBgCo", PagePolicy::open, RefreshMode::none);
  const auto hashed = params_of("HBM3-6400", "RoBaChBgCo:hash", PagePolicy::open, RefreshMode::none);
  const auto summaries = run_all(
      {Setup{linear, 16, stream(Bytes{16} << 20, 4096, 4096)}, Setup{hashed, 16, stream(Bytes{16} << 20, 4096, 4096)}});
  MESSAGE("HBM3 stream, 16 pseudo-channels: linear ", 100.0 * summaries[0].bandwidth_fraction_of_peak, "%, :hash ",
          100.0 * summaries[1].bandwidth_fraction_of_peak, "% of pin bandwidth");
  for (const auto& summary : summaries) CHECK(summary.bandwidth_fraction_of_peak >= 0.9);
  CHECK(summaries[1].row_misses + summaries[1].row_conflicts == summaries[0].row_misses + summaries[0].row_conflicts);
  CHECK(summaries[1].bandwidth_fraction_of_peak ==
        doctest::Approx(summaries[0].bandwidth_fraction_of_peak).epsilon(0.01));
}

TEST_CASE("writes and reads mixed: every request completes and the write queue drains") {
  std::vector<DramRequest> requests = random_reads(4000);
  for (std::size_t i = 0; i < requests.size(); i += 3) requests[i].write = true;
  const auto summary = run(params_of("DDR5-4800", "RoBaBgCoCh"), 2, requests);
  CHECK(summary.channels == 2);
  CHECK(summary.row_hits + summary.row_misses + summary.row_conflicts == 4000);
  CHECK(summary.energy.wr_j > 0);
  CHECK(summary.energy.rd_j > 0);
}

}  // namespace
// A memoized replay ends with the refreshes its recorded twin left owed: each channel idle through it issues those due
// by the end less the channel's lag, and then owes the next decision the refreshes due since, as the twin did.
TEST_CASE("refreshes up to each channel's own lag: the first unissued one falls due within one interval of it") {
  const DramParams dram = params_of("HBM2-2000", "RoBaBgCoCh", PagePolicy::open, RefreshMode::per_bank);
  DramDevice device("lagged", dram, 2);
  const Cycle interval = dram.standard.timing.tREFIsb;
  const double tck_s = dram.standard.tck_s;
  const auto fs_of = [&](double cycles) { return seconds_to_fs(cycles * tck_s); };
  const TimeFs end = fs_of(10.5 * static_cast<double>(interval));
  // Nothing issued yet: the first refresh fell due one interval in.
  for (const TimeFs lag : device.refresh_lag_fs(end)) {
    CHECK(std::abs(static_cast<double>(lag - fs_of(9.5 * static_cast<double>(interval)))) <= 2.0);
  }
  CHECK(device.refresh_lag_fs(fs_of(0.5 * static_cast<double>(interval))) == std::vector<TimeFs>{0, 0});
  const TimeFs asked = fs_of(3.25 * static_cast<double>(interval));
  device.refresh_idle_until(end, {asked, 0});
  // Channel 0 issued those due by 7.25 intervals (7), channel 1 those due by 10.5 (10).
  CHECK(device.channel(0).counters().refs_per_bank == 7);
  CHECK(device.channel(1).counters().refs_per_bank == 10);
  const auto lag = device.refresh_lag_fs(end);
  CHECK(lag[0] > asked - fs_of(static_cast<double>(interval)));
  CHECK(lag[0] <= asked);
  CHECK(lag[1] == 0);
}

// A run of replayed ops leaves the DRAM idle: each replay's end issues the refreshes due by then on every channel.
// The row command bus two pseudo-channels share keeps only what a later command could still meet; a bus that kept
// every refresh it was given grew by a round of them per replay, and each new refresh searched that list.
TEST_CASE("refreshes of idle channels through a thousand replays leave their shared row buses bounded") {
  const DramParams dram = params_of("HBM3-6400", "RoBaBgCoCh", PagePolicy::open, RefreshMode::per_bank);
  REQUIRE(dram.standard.shared_command_bus);
  DramDevice device("idle", dram, 4);
  const double interval_s = static_cast<double>(dram.standard.timing.tREFIsb) * dram.standard.tck_s;
  const std::uint32_t banks = dram.standard.banks();
  const std::uint64_t replays = 1000;
  for (std::uint64_t r = 1; r <= replays; ++r) {
    device.refresh_idle_until(seconds_to_fs(static_cast<double>(r * 5 * banks) * interval_s + 1e-9), {});
  }
  for (std::uint32_t c = 0; c < device.channels(); ++c) {
    INFO("channel " << c);
    // Every refresh interval got its REF...
    CHECK(device.channel(c).counters().refs_per_bank == replays * 5 * banks);
    // ...and the bus holds about a round of them, not a round per replay.
    CHECK(device.channel(c).checker().row_bus_cycles_held() <= 4 * banks);
  }
}

}  // namespace roofsim::dram
