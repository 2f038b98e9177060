// What an HBM device's front end and command pins do to its bandwidth, against closed forms from the standard files:
// the two pseudo-channels of a channel take turns on its row command bus (random reads are bounded by it), and a
// stream of 32-byte requests, 128 in a row into one channel, still keeps every channel busy.
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
#include "sim/config/dram_params.h"
#include "tests/support/test_paths.h"

namespace roofsim::dram {
namespace {

DramParams hbm2(RefreshMode refresh = RefreshMode::none) {
  DramParams dram;
  dram.standard = load_dram_standard(roofsim::test::config_path("dram/HBM2-2000.toml"));
  dram.stacks = 1;
  dram.model = DramModel::detailed;
  dram.mapping = "RoBaChBgCo";
  dram.page_policy = PagePolicy::open;
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
    const std::string name = "pair" + std::to_string(i);
    devices.push_back(std::make_unique<DramDevice>(name.c_str(), setups[i].dram, setups[i].channels));
    devices.back()->attach_source(*sources.back());
  }
  sc_core::sc_start();
  std::vector<DramSummary> summaries;
  for (std::size_t i = 0; i < setups.size(); ++i) {
    summaries.push_back(summarize(devices[i]->collect(), setups[i].dram.standard));
  }
  return summaries;
}

// Random 64-byte reads over `channels` channels (the default mapping puts 4 KiB in a channel).
std::vector<DramRequest> random_reads(std::size_t count, std::uint32_t channels) {
  std::mt19937_64 random(5);
  std::vector<DramRequest> requests;
  const Bytes slots = (Bytes{1} << 22) * channels;
  for (std::size_t i = 0; i < count; ++i) requests.push_back(DramRequest{(random() % slots) * 64, 64, false, 0});
  return requests;
}

TEST_CASE("random reads on both pseudo-channels of an HBM2 channel are bounded by their shared row command bus") {
  const auto dram = hbm2();
  const auto& t = dram.standard.timing;
  // Every random read opens its row: a PRE (pre_cycles) and an ACT (act_cycles) on the row bus, for 64 B, which
  // is 64 / 32 bursts of BL/2 cycles on its own pseudo-channel's data bus. Two pseudo-channels move 2 x 4 data
  // cycles per 2 x 3 row-bus cycles: at most 4/6 of their pin rate. Alone, a pseudo-channel is bounded by the row
  // bus at 4/3 (none) and by tFAW at 4 requests x 4 data cycles per tFAW = 16 cycles (1): the pin rate.
  const double data_cycles = 64.0 / static_cast<double>(dram.standard.burst_bytes()) * dram.standard.burst_cycles();
  const double row_cycles = static_cast<double>(t.act_cycles + t.pre_cycles);
  const double pair_bound = std::min(1.0, data_cycles / row_cycles / 2.0);
  const double alone_bound =
      std::min({1.0, data_cycles / row_cycles, 4.0 * data_cycles / t.tFAW, data_cycles / t.tRRD_S});
  REQUIRE(pair_bound == doctest::Approx(4.0 / 6.0));
  REQUIRE(alone_bound == doctest::Approx(1.0));
  const auto summaries = run_all({Setup{dram, 2, random_reads(40000, 2)}, Setup{dram, 1, random_reads(20000, 1)}});
  const auto& pair = summaries[0];
  const auto& alone = summaries[1];
  CHECK(pair.row_hit_rate < 0.01);
  CHECK(pair.bandwidth_fraction_of_peak <= pair_bound + 0.005);
  CHECK(pair.bandwidth_fraction_of_peak >= pair_bound - 0.05);
  // Alone, the bank cycle and the scheduler's look-ahead leave it short of the pin rate, but well above the pair.
  CHECK(alone.bandwidth_fraction_of_peak > pair.bandwidth_fraction_of_peak + 0.1);
  CHECK(alone.bandwidth_fraction_of_peak <= alone_bound);
}

TEST_CASE("a stream of 32-byte requests over all channels of HBM2 and HBM3 keeps them busy: at least 85% of pin") {
  // The default mapping puts bank_groups x row_size = 4 KiB, 128 requests of 32 B, in a row into one channel: the
  // front end buffers a channel's whole share, so that a channel whose queue is full does not hold up the others.
  std::vector<Setup> setups;
  for (const char* file : {"dram/HBM2-2000.toml", "dram/HBM3-6400.toml"}) {
    auto dram = hbm2(RefreshMode::standard);
    dram.standard = load_dram_standard(roofsim::test::config_path(file));
    std::vector<DramRequest> requests;
    for (Bytes i = 0; i < (Bytes{4} << 20) / 32; ++i) requests.push_back(DramRequest{i * 32, 32, false, 0});
    setups.push_back(Setup{dram, 0, std::move(requests)});
  }
  const auto summaries = run_all(std::move(setups));
  CHECK(summaries[0].channels == 16);
  CHECK(summaries[1].channels == 32);
  for (const auto& summary : summaries) CHECK(summary.bandwidth_fraction_of_peak >= 0.85);
}

}  // namespace
}  // namespace roofsim::dram
