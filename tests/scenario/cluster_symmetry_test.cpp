// Scale by symmetry: simulating one representative of 16 symmetric ranks gives the times of
// simulating all 16, to the femtosecond, with the bundled cluster and device files (detailed DRAM). What made them
// differ before was SystemC's order among timed events of equal time (a heap compared on time only, whose ties
// depend on every event pending in the kernel): a device's units that woke at the same femtosecond reached the
// shared L2 and DRAM in an order that changed with the number of devices. Devices now release their same-instant
// wake-ups in a fixed order (models/kernel/device_scheduler.h), so a rank's compute does not depend on its neighbours.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {
nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return nlohmann::json::parse(buffer.str());
}
}  // namespace

TEST_CASE("a DP step on 16 ranks gives identical times collapsed to one representative and simulated in full") {
  const auto dir = test::scratch_dir("symmetry-16");
  const auto workload = dir / "dp16.toml";
  std::ofstream(workload) << R"(
[workload]
name = "dp16"
devices = "devices"
[params]
devices = 16
[[template]]
name = "train"
kind = "dp_training_step"
hidden = 512
ffn = 2048
seq = 256
batch = 1
layers = 2
dtype = "fp16"
bucket_size = "4MiB"
)";
  const std::string common = "run --hw '" + test::config_path("clusters/8xH100-NVSwitch.toml").string() +
                             "' --set cluster.devices=16 --workload '" + workload.string() + "'";
  const auto collapsed = test::run_roofsim(common + " --out '" + (dir / "collapsed").string() + "'");
  const auto full = test::run_roofsim(common + " --full --out '" + (dir / "full").string() + "'");
  REQUIRE(collapsed.exit_code == 0);
  REQUIRE(full.exit_code == 0);
  const auto a = read_json(dir / "collapsed" / "cluster.json");
  const auto b = read_json(dir / "full" / "cluster.json");
  CHECK(a["symmetric"].get<bool>());
  CHECK(a["simulated_ranks"].size() == 1);
  CHECK(a["simulated_ranks"][0]["represents"].get<int>() == 16);
  CHECK(b["simulated_ranks"].size() == 16);
  // Exact: the JSON holds the femtosecond times as doubles written with full precision.
  CHECK(a["sim_time_s"].get<double>() == b["sim_time_s"].get<double>());
  const auto& representative = a["simulated_ranks"][0];
  for (const auto& rank : b["simulated_ranks"]) {
    CHECK(rank["step_s"].get<double>() == representative["step_s"].get<double>());
    CHECK(rank["compute_s"].get<double>() == representative["compute_s"].get<double>());
    CHECK(rank["exposed_communication_s"].get<double>() == representative["exposed_communication_s"].get<double>());
    REQUIRE(rank["ops"].size() == representative["ops"].size());
    for (std::size_t i = 0; i < rank["ops"].size(); ++i) {
      CHECK(rank["ops"][i]["end_s"].get<double>() == representative["ops"][i]["end_s"].get<double>());
    }
  }
  REQUIRE(a["collectives"].size() == b["collectives"].size());
  for (std::size_t i = 0; i < a["collectives"].size(); ++i) {
    CHECK(a["collectives"][i]["issue_s"].get<double>() == b["collectives"][i]["issue_s"].get<double>());
    CHECK(a["collectives"][i]["finish_s"].get<double>() == b["collectives"][i]["finish_s"].get<double>());
  }
  CHECK(collapsed.out.find("1 representative of 16 symmetric ranks") != std::string::npos);
}
