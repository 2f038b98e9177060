// The bundled DRAM standards: they load at their own pin rate and re-timed to the slower rates devices run them at,
// and their organization gives the pin bandwidths of the JEDEC documents.
#include <doctest/doctest.h>

#include <cmath>

#include "models/dram/dram_timing_checker.h"
#include "sim/config/data_paths.h"
#include "tests/unit/dram/dram_test_support.h"

namespace roofsim::dram {
namespace {

TEST_CASE("every standard loads at its pin rate and at 80% of it, with tRC >= tRAS + tRP and whole-cycle bursts") {
  for (const auto& file : bundled_files("configs/dram")) {
    CAPTURE(file.string());
    const auto nominal = load_dram_standard(file);
    for (const double scale : {1.0, 0.8, 0.8178}) {
      const auto standard = load_dram_standard(file, nominal.data_rate_bits_per_s * scale);
      CHECK(standard.timing.tRC >= standard.timing.tRAS + standard.timing.tRP);
      CHECK(standard.burst_cycles() == doctest::Approx(std::round(standard.burst_cycles())));
      CHECK(standard.row_bytes % standard.burst_bytes() == 0);
    }
  }
}

TEST_CASE("pin bandwidth per stack or device follows the organization") {
  const auto per_device = [](const DramStandardParams& s) {
    return s.channel_bandwidth_bytes_per_s() * s.channels * s.pseudo_channels;
  };
  CHECK(per_device(test::standard("HBM2-2000")) == doctest::Approx(256e9));     // 1024 bits x 2 Gb/s
  CHECK(per_device(test::standard("HBM2e-3200")) == doctest::Approx(409.6e9));  // 1024 bits x 3.2 Gb/s
  CHECK(per_device(test::standard("HBM3-6400")) == doctest::Approx(819.2e9));   // 1024 bits x 6.4 Gb/s
  CHECK(per_device(test::standard("HBM3e-8000")) == doctest::Approx(1024e9));   // 1024 bits x 8 Gb/s
  CHECK(per_device(test::standard("DDR4-3200")) == doctest::Approx(25.6e9));    // 64 bits x 3.2 Gb/s
  CHECK(per_device(test::standard("DDR5-4800")) == doctest::Approx(38.4e9));    // 2 x 32 bits x 4.8 Gb/s
  CHECK(per_device(test::standard("LPDDR5-6400")) == doctest::Approx(51.2e9));  // 4 x 16 bits x 6.4 Gb/s
}

}  // namespace
}  // namespace roofsim::dram
