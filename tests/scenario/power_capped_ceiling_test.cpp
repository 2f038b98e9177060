// The power-aware roofline of `roofsim roofline` for a device with one DVFS state matches the capped time of Choi et
// al. ("Algorithmic time, energy, and power on candidate HPC compute building blocks", IPDPS 2014, eq. 4-6):
//     T = max(W tau_flop, Q tau_mem, (W e_flop + Q e_mem) / (P_cap - pi_0)),
// with W FLOPs, Q compulsory bytes, tau_flop = 1 / P(f), e_flop and the on-chip e_mem at (V / V0)^2, and pi_0 the
// compute leakage ~ V / V0 plus the DRAM background (which keeps its own supply) plus the clock power of the SMs
// holding work (units x energy per cycle x f x (V / V0)^2), drawn for as long as the op runs.
// The figures below are the bundled H100 file's, written out so the test does not reuse the code under test.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// The H100 file with its DVFS table replaced by one state: the nominal clock (a file's states never exceed it and the
// loader adds it when missing) at 0.85 V, below the 0.95 V the energies are given at.
std::filesystem::path one_state_h100(const std::filesystem::path& dir) {
  std::string text = test::read_file(test::config_path("H100-SXM5.toml"));
  const auto first = text.find("[[power.dvfs]]");
  const auto after = text.find("[interconnect]");
  REQUIRE(first != std::string::npos);
  REQUIRE(after != std::string::npos);
  text = text.substr(0, first) + "[[power.dvfs]]\nclock = \"1.98GHz\"\nvoltage = \"0.85V\"\n\n" + text.substr(after);
  const auto file = dir / "H100-one-state.toml";
  std::ofstream(file) << text;
  return file;
}

}  // namespace

TEST_CASE("power-aware ceiling with one DVFS state equals W over Choi's capped time") {
  const auto dir = test::scratch_dir("power_capped_ceiling");
  const auto hw = one_state_h100(dir);
  for (const char* cap : {"1000W", "700W", "400W"}) {
    const auto result = test::run_roofsim("roofline --hw '" + hw.string() + "' --workload '" +
                                          test::workload_path("gemm.toml").string() + "' --out '" +
                                          (dir / cap).string() + "' --set power.cap=" + cap);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const auto report = nlohmann::json::parse(test::read_file(dir / cap / "report.json"));
    const double cap_w = std::stod(cap);
    const double v = 0.85 / 0.95;
    const double peak = 132.0 * 4096 * 1.83e9;                      // the matrix engine's fp16 peak
    const double bandwidth = 5 * 1024 / 8.0 * 5.234e9;              // 5 HBM3 stacks x 1024 bits x 5.234 Gb/s
    const double e_flop = 0.466e-12 * v * v;                        // fp16 on the matrix engine
    const double e_byte = (0.888e-12 + 4.44e-12) * v * v + 24e-12;  // smem + L2 (compute supply) + HBM
    // HBM3: 55 mW x 5 stacks x 16 channels x 2 pseudo-channels; 132 SMs x 1053 pJ per cycle at 1.98 GHz
    const double pi0 = 140.0 * v + 0.055 * 160 + 132 * 1053e-12 * 1.98e9 * v * v;
    std::size_t power_bound = 0;
    for (const auto& op : report["ops"]) {
      power_bound += op["ceiling_bound_by"]["power"] == "power" ? 1 : 0;
      const double w = op["useful_flops"].get<double>();
      const double q = op["bytes"]["dram"].get<double>();
      CHECK(op["bytes"]["smem"].get<double>() == q);  // compulsory bytes: the same at every level
      const double time = std::max({w / peak, q / bandwidth, (w * e_flop + q * e_byte) / (cap_w - pi0)});
      CAPTURE(cap);
      CAPTURE(op["name"].get<std::string>());
      CHECK(test::within(op["ceilings"]["power"].get<double>(), w / time, 1e-6));
    }
    // Static and clock power take 354 W: the cap binds the large GEMMs at 400 W (46 W left) and at the 700 W TDP
    // (346 W left, under the 369 W their FLOPs draw at the peak rate), and nothing at 1000 W.
    CAPTURE(power_bound);
    CHECK((cap_w == 1000 ? power_bound == 0 : power_bound >= 2));
  }
}
