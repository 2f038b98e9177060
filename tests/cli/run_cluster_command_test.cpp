// `roofsim run --hw CLUSTER` as a user runs it (issue 10, Done when): the table, chart, report and trace show
// compute, exposed communication and the communication-aware ceiling.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {
std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}
}  // namespace

TEST_CASE(
    "a TP decode step on 8 ranks reports exposed communication and the network ceiling in table, chart and "
    "trace") {
  const auto dir = test::scratch_dir("run-cluster-tp");
  const auto run =
      test::run_roofsim("run --hw 8xH100-NVSwitch --workload tp_decode --full --out '" + dir.string() + "'");
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("exposed_us") != std::string::npos);
  CHECK(run.out.find("comm_ceil_TF") != std::string::npos);
  CHECK(run.out.find("network: ring over 8 ranks") != std::string::npos);

  const auto report = nlohmann::json::parse(slurp(dir / "report.json"));
  const auto& step = report["ops"].back();
  CHECK(step["kind"] == "step");
  CHECK(step["network_bytes"].get<double>() > 0);
  // Every rank is simulated (--full): one trace process each, a network process with busy links.
  const auto trace = nlohmann::json::parse(slurp(dir / "trace.json"));
  int ranks = 0, links = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "M") continue;
    if (event["name"] == "process_name" && event["pid"].get<int>() > 0) ++ranks;
    if (event["name"] == "thread_name" && event["pid"].get<int>() == 0) ++links;
  }
  CHECK(ranks == 8);
  CHECK(links == 16);  // each device's link to the switch, both directions
  const auto cluster = nlohmann::json::parse(slurp(dir / "cluster.json"));
  for (const auto& rank : cluster["simulated_ranks"]) {
    // A decode block is a chain: nothing overlaps its activation AllReduces.
    CHECK(test::within(rank["exposed_communication_s"].get<double>(), rank["communication_s"].get<double>(), 1e-9));
    CHECK(rank["comm_ceiling_flops_per_s"].get<double>() > 0);
  }
  CHECK(slurp(dir / "roofline.svg").find("network") != std::string::npos);
}
