#include <doctest/doctest.h>

#include "models/compute/engine_share.h"
#include "tests/support/relative.h"

using namespace roofsim;

TEST_CASE("a step's time is its FLOPs over the engine's rate, rounded once") {
  // 2 x 128 x 128 x 64 FLOPs at 1024 FLOP/cycle and 1.755 GHz (an H100 SM's dense bf16 rate, 1024/cycle).
  const TimeFs t = EngineShare::step_fs(2ULL * 128 * 128 * 64, 1024 * 1.755e9);
  CHECK(test::within(fs_to_seconds(t), 2.0 * 128 * 128 * 64 / (1024 * 1.755e9), 1e-9));
}

TEST_CASE("resident tiles share the engine: k ready steps finish after k step times, never sooner") {
  EngineShare engine;
  const TimeFs step = 1000;
  TimeFs last = 0;
  for (int tile = 0; tile < 4; ++tile) last = engine.run(0, step);
  CHECK(last == 4 * step);
  CHECK(engine.busy_fs() == 4 * step);
  // A step ready after the engine went idle starts when it is ready.
  CHECK(engine.run(10 * step, step) == 11 * step);
}
