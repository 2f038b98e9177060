// "Did you mean": prefixes and near misses are suggested, unrelated names are not.
#include <doctest/doctest.h>

#include "sim/config/suggestions.h"

using roofsim::closest_names;
using roofsim::did_you_mean;

TEST_CASE("did you mean: a prefix (H100 for H100-SXM5), a typo (power.capp), nothing for an unrelated name") {
  const std::vector<std::string> devices = {"A100-SXM4-80GB", "B200", "H100-SXM5", "H200", "MI300X", "TPU-v4"};
  CHECK(closest_names("H100", devices) == std::vector<std::string>{"H100-SXM5", "H200"});
  CHECK(did_you_mean("h100-sxm", devices) == "; did you mean H100-SXM5?");
  const std::vector<std::string> keys = {"power.cap", "power.tdp", "memory.l2.capacity", "dram.mapping"};
  CHECK(closest_names("power.capp", keys).front() == "power.cap");
  CHECK(did_you_mean("dram.maping", keys) == "; did you mean dram.mapping?");
  CHECK(did_you_mean("frobnicate", keys).empty());
  CHECK(did_you_mean("", keys).empty());
}

TEST_CASE("did you mean: at most three, nearest first, joined with commas and or") {
  const std::vector<std::string> names = {"gemm", "gemv", "gemx", "geme", "stream"};
  CHECK(did_you_mean("gem", names) == "; did you mean gemm, gemv or gemx?");
}
