// energy.svg: the arch line of Choi et al. 2013 and each op's FLOP/J, checked against the closed forms by parsing
// the chart's data attributes.
#include <doctest/doctest.h>

#include <regex>
#include <sstream>
#include <string>

#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"
#include "sim/report/energy_chart.h"
#include "sim/results/roofline_report.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

constexpr double kDramW = 0.055 * 160;  // HBM3 background per pseudo-channel x 5 stacks x 16 channels x 2
// The SMs' clock power while they hold work: 132 x 1053 pJ per cycle at 1.98 GHz and 0.95 V, x f (V/V0)^2 elsewhere.
constexpr double kUnitsW = 132 * 1053e-12 * 1.98e9;

struct Setup {
  HardwareParams hw = load_hardware(test::config_path("H100-SXM5.toml"));
  DeviceRoof device = make_device_roof(hw);
  Workload workload = load_workload(test::workload_path("gemm.toml"), {}, hw);
  Report report = make_roofline_report(workload, hw, device);
};

}  // namespace

TEST_CASE("the arch line: 1 / (e_flop + e_mem / OI + pi_0 max(1 / P, 1 / (OI B))) at the nominal and slowest states") {
  const Setup s;
  // H100 file: matrix fp16 0.466 pJ/FLOP; smem 0.888, L2 4.44, HBM 24 pJ/B; 140 W static at 0.95 V; 132 x 4096
  // FLOP/cycle at 1.83 GHz; 3.35 TB/s; HBM3 background 55 mW x 160 pseudo-channels = 8.8 W, not voltage-scaled.
  const double peak = 132.0 * 4096 * 1.83e9;
  const double bandwidth = s.device.main_bandwidth_bytes_per_s;
  const double e_mem = (0.888 + 4.44 + 24) * 1e-12;
  for (const double oi : {0.1, 10.0, 295.0, 5000.0}) {
    const double expected =
        1.0 / (0.466e-12 + e_mem / oi + (140.0 + kDramW + kUnitsW) * std::max(1.0 / peak, 1.0 / (oi * bandwidth)));
    CHECK(test::within(arch_flops_per_j(s.device, DataType::fp16, "matrix", oi, s.device.dvfs.size() - 1), expected,
                       1e-9));
  }
  // The slowest state (0.99 GHz, 0.711 V): FLOP and SRAM energies x (0.711 / 0.95)^2, leakage x 0.711 / 0.95, the
  // clock power x 0.99 / 1.98 x (0.711 / 0.95)^2, and the peak x 0.99 / 1.98; HBM keeps its energy.
  const double v = 0.711 / 0.95;
  const double slow_peak = peak * 0.99 / 1.98;
  const double oi = 5000;
  const double expected =
      1.0 / (0.466e-12 * v * v + ((0.888 + 4.44) * 1e-12 * v * v + 24e-12) / oi +
             (140.0 * v + kDramW + kUnitsW * 0.5 * v * v) * std::max(1.0 / slow_peak, 1.0 / (oi * bandwidth)));
  CHECK(test::within(arch_flops_per_j(s.device, DataType::fp16, "matrix", oi, 0), expected, 1e-9));
}

TEST_CASE("energy.svg puts each op at its OI and useful FLOPs per modelled joule and draws the arch lines") {
  const Setup s;
  std::ostringstream out;
  write_energy_svg(s.report, s.device, out);
  const std::string svg = out.str();
  CHECK(svg.find("class=\"plot-area\"") != std::string::npos);
  const std::regex arch_re("class=\"arch\" data-dtype=\"fp16\" data-engine=\"matrix\" data-clock-hz=\"([0-9.e+]+)\"");
  const auto arches = std::distance(std::sregex_iterator(svg.begin(), svg.end(), arch_re), std::sregex_iterator());
  CHECK(arches == 2);  // nominal and slowest state
  const std::regex op_re("data-op=\"([^\"]+)\" data-oi=\"([^\"]+)\" data-flops-per-j=\"([^\"]+)\"");
  std::size_t points = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), op_re); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    const auto found =
        std::find_if(s.report.ops.begin(), s.report.ops.end(), [&](const OpReport& op) { return op.name == name; });
    REQUIRE(found != s.report.ops.end());
    // Closed form: FLOPs x e_flop + sum of compulsory bytes x e_l + (static + clock power) x FLOPs / binding ceiling.
    const double flops = static_cast<double>(found->useful_flops);
    const double bytes = static_cast<double>(found->bytes_at("dram"));
    const double energy = flops * 0.466e-12 + bytes * (0.888 + 4.44 + 24) * 1e-12 +
                          (140.0 + kDramW + kUnitsW) * flops / found->attainable_flops_per_s();
    CHECK(test::within(std::stod((*it)[2]), flops / bytes, 1e-8));
    CHECK(test::within(std::stod((*it)[3]), flops / energy, 1e-8));
    ++points;
  }
  CHECK(points == s.report.ops.size());
}

TEST_CASE("a simulated energy replaces the modelled one") {
  Setup s;
  s.report.ops.front().energy_j = 2.0;
  CHECK(op_energy_j(s.device, s.report.ops.front()) == 2.0);
}
