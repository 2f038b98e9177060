// The governor's parameters come from the config's power section with units: the window, the reaction delay and the
// up-step hysteresis (power.up_hold, a time, counted in whole windows).
#include <doctest/doctest.h>

#include <vector>

#include "models/power/power_domain.h"
#include "sim/config/hardware_params.h"
#include "sim/config/model_params.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("governor parameters: window, reaction delay and up-step hysteresis are config keys with units") {
  const auto defaults = governor_params(power_domain_params(load_hardware(test::config_path("H100-SXM5.toml"))));
  // Schema defaults: a 10 us window, 1 us reaction delay, 80 us hold = 8 windows.
  CHECK(defaults.window_fs == 10'000'000'000ULL);
  CHECK(defaults.reaction_delay_fs == 1'000'000'000ULL);
  CHECK(defaults.up_windows == 8);
  const auto set = governor_params(power_domain_params(load_hardware(
      test::config_path("H100-SXM5.toml"),
      {{"power.window", "20us"}, {"power.reaction_delay", "2us"}, {"power.up_hold", "50us"}, {"power.cap", "450W"}})));
  CHECK(set.window_fs == 20'000'000'000ULL);
  CHECK(set.reaction_delay_fs == 2'000'000'000ULL);
  CHECK(set.up_windows == 3);  // 50 us in 20 us windows, rounded up
  CHECK(set.cap_w == 450.0);
  // A hold shorter than a window still waits for one.
  const auto short_hold = governor_params(
      power_domain_params(load_hardware(test::config_path("H100-SXM5.toml"), {{"power.up_hold", "1us"}})));
  CHECK(short_hold.up_windows == 1);
  // A bare number is refused: every time carries its unit.
  CHECK_THROWS(load_hardware(test::config_path("H100-SXM5.toml"), {{"power.up_hold", "80"}}));
}
