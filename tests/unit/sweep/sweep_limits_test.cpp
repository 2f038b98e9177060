// A sweep's size and values are checked before any point exists: the product of its axes' lengths against the point
// limit (three axes of 99,999 values are refused without expanding), range ends that are not finite, and every value
// against the range of the key it sets.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "sim/core/input_error.h"
#include "sim/sweep/sweep_spec.h"

using namespace roofsim;

namespace {

const std::string kHeader = R"([sweep]
name = "t"
hardware = "H100-SXM5"
workload = "gemm"
metrics = ["sim_time_s"]
)";

std::string range_axis(const std::string& key, const std::string& to) {
  return "[[axis]]\nkey = \"" + key + "\"\nfrom = 1\nto = " + to + "\nstep = 1\n";
}

std::string error_of(const std::string& text, const WorkLimits& limits = {}) {
  try {
    check_sweep_keys(parse_sweep(kHeader + text, "t.toml", "/tmp", limits));
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("three axes of 99,999 values are refused from their lengths, before any point is made") {
  const std::string axes = range_axis("workload.params.size", "99999") + range_axis("compute.units", "99999") +
                           range_axis("memory.l2.bytes_per_cycle", "99999");
  const auto start = std::chrono::steady_clock::now();
  const auto message = error_of(axes);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  CHECK(message.find("t.toml:6:1") != std::string::npos);
  CHECK(message.find("999970000299999 points, above the limit of 100000 points") != std::string::npos);
  CHECK(message.find("--allow-large") != std::string::npos);
  const auto spec = parse_sweep(kHeader + axes, "t.toml", "/tmp", WorkLimits::unlimited());
  CHECK(point_count(spec) == 999970000299999ULL);
}

TEST_CASE("a range that ends at nan or inf is refused at its key") {
  CHECK(error_of(range_axis("workload.params.size", "nan")).find("t.toml:9:6: key 'axis[0].to' = nan") !=
        std::string::npos);
  CHECK(error_of(range_axis("workload.params.size", "inf")).find("a finite number") != std::string::npos);
}

TEST_CASE("a value outside the range of the key it sets is refused at the axis, naming the key and the range") {
  const auto message =
      error_of("[[axis]]\nkey = \"compute.engines.matrix.clock\"\nvalues = [\"1GHz\", \"1e300GHz\"]\n");
  CHECK(message.find("t.toml:8:10: key 'axis[0].values' = 1e300GHz") != std::string::npos);
  CHECK(message.find("1 MHz .. 100 GHz") != std::string::npos);
  CHECK(message.find("compute.engines.matrix.clock") != std::string::npos);
  const auto units = error_of(range_axis("compute.units", "2") + "unit = \"\"\n");
  CHECK(units.empty());
  const auto set =
      error_of("set = [\"compute.units=100000000\"]\n[[axis]]\nkey = \"power.cap\"\nvalues = [\"450W\"]\n");
  CHECK(set.find("sweep.set") != std::string::npos);
  CHECK(set.find("1 .. 1000000") != std::string::npos);
}
