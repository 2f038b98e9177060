// Every bundled device's modelled die area and derived TDP against its published figures.
//
// Tolerances, and why. The area model adds SRAM macros at published bitcell densities with a periphery per bank,
// Horowitz's 45 nm datapath areas scaled by foundry logic density, and estimated PHY, NoC and I/O areas; its one
// calibration factor (logic over datapath, the same for every node) is fixed on GH100 alone, so every other device
// is a prediction. The logic term is proportional to the engines' datapaths, whereas an SM also holds schedulers,
// load/store and texture paths whose size does not follow its tensor width: V100 and A100, whose SMs have a quarter
// and a half of GH100's tensor datapath, come out 27 % and 31 % small, while the SRAM-heavy LPU is 7 % large. 35 %
// bounds that known shortfall; an error beyond it means a part is missing or mis-sized.
// The derived power budget adds the hungriest engine at its peak, the clock power of every unit holding work, every
// SRAM and the DRAM at full bandwidth, the links and leakage, from per-operation energies taken from unit-level figures
// (Horowitz ISSCC 2014 scaled by node). It is an upper bound: a board whose parts at peak exceed its TDP runs
// power-limited (its governor lowers the clock), as B200 and MI300X do at their dense fp8 peaks. So the check is
// one-sided with two bounds: the parts must be able to reach the TDP (budget at least 75 % of it; 25 % for board
// margins the budget does not model, power excursions and VRM losses), and the budget stays below twice the TDP (the
// per-node energy scaling is stated as good to about 2x; beyond it a part's energy is wrong).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "sim/config/hardware_params.h"
#include "sim/design/design_model.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {
constexpr double kAreaTolerance = 0.35;
constexpr double kTdpShortfall = 0.25;  // budget >= (1 - this) x TDP
constexpr double kTdpExcess = 1.0;      // budget <= (1 + this) x TDP
}  // namespace

TEST_CASE("bundled devices: modelled die area and derived TDP against the published figures") {
  std::printf("%-16s %-12s %9s %9s %7s %7s %7s %7s %9s\n", "device", "node", "area_mm2", "pub_mm2", "err", "tdp_w",
              "pub_w", "err", "cost_usd");
  for (const char* name :
       {"V100-SXM2", "A100-SXM4-80GB", "H100-SXM5", "H200", "B200", "MI300X", "TPU-v4", "SRAM-LPU"}) {
    const auto hw = load_hardware(test::config_path(std::string(name) + ".toml"));
    REQUIRE_MESSAGE(hw.design.technology.has_value(), name << " has no [technology] section");
    const auto design = estimate_design(hw);
    const double published_mm2 = hw.design.area.published_die_area_mm2;
    const double area_error = published_mm2 > 0 ? design.area.total_mm2 / published_mm2 - 1 : 0.0;
    const double tdp_error = hw.power.tdp_w > 0 ? design.power.tdp_w / hw.power.tdp_w - 1 : 0.0;
    std::printf("%-16s %-12.12s %9.1f %9.1f %+6.1f%% %7.1f %7.1f %+6.1f%% %9.0f\n", name, design.node.c_str(),
                design.area.total_mm2, published_mm2, area_error * 100, design.power.tdp_w, hw.power.tdp_w,
                tdp_error * 100, design.cost.total_usd);
    if (published_mm2 > 0) CHECK_MESSAGE(std::abs(area_error) <= kAreaTolerance, name << " die area");
    if (hw.power.tdp_w > 0) {
      CHECK_MESSAGE(tdp_error >= -kTdpShortfall, name << " TDP: the parts cannot reach it");
      CHECK_MESSAGE(tdp_error <= kTdpExcess, name << " TDP: the budget exceeds twice it");
    }
    CHECK(design.cost.total_usd > 0);
    // TPU v4's die is published only as "< 600 mm^2" (Jouppi et al., ISCA 2023).
    if (std::string(name) == "TPU-v4") CHECK(design.area.total_mm2 < 600);
  }
}
