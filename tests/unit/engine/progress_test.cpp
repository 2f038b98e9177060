#include "sim/engine/progress.h"

#include <doctest/doctest.h>

#include <sstream>

namespace roofsim {

TEST_CASE("progress stays silent for 2 s, then prints every 2 s with the ETA from the share of FLOPs done") {
  std::ostringstream out;
  ProgressReport progress(10, 1000, &out);
  CHECK(progress.update(2, 100, 0.5, 1.9).empty());
  // A quarter of the FLOPs in 3 s: three times as long again.
  CHECK(progress.update(4, 250, 1.0, 3.0) == "progress: 4/10 ops done, simulated 1 s, wall 3 s, ETA 9 s\n");
  CHECK(progress.update(5, 300, 1.1, 4.0).empty());
  CHECK(progress.update(9, 900, 2.0, 9.0) == "progress: 9/10 ops done, simulated 2 s, wall 9 s, ETA 1 s\n");
}

TEST_CASE("progress without FLOPs estimates from the ops done, and prints nothing without a stream (--quiet)") {
  ProgressReport progress(4, 0, nullptr);
  CHECK(progress.update(1, 0, 0.1, 5.0).empty());
  std::ostringstream out;
  ProgressReport ops_only(4, 0, &out);
  CHECK(ops_only.update(1, 0, 0.1, 6.0) == "progress: 1/4 ops done, simulated 0.1 s, wall 6 s, ETA 18 s\n");
}

}  // namespace roofsim
