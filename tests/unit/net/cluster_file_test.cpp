// Cluster files: the bundled ones load; errors name file:line:column and the key; the collective command prints
// nccl-tests columns.
#include <doctest/doctest.h>

#include <fstream>

#include "models/net/topology.h"
#include "sim/config/cluster_params.h"
#include "sim/core/input_error.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// A device file small enough to write here, so these tests do not depend on the bundled device library.
std::filesystem::path write_device(const std::filesystem::path& dir) {
  std::ofstream(dir / "tiny.toml") << R"([device]
name = "tiny"
[compute]
units = 4
[compute.engines.vector]
clock = "1GHz"
flops_per_cycle = { fp32 = 64 }
[memory.sram]
scope = "device"
capacity = "8MiB"
bytes_per_cycle = 256
clock = "1GHz"
latency = "100ns"
)";
  return dir / "tiny.toml";
}

std::string error_of(const std::string& text, const std::filesystem::path& dir) {
  try {
    (void)load_cluster_text(text, "c.toml", dir);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("bundled clusters load and build their topologies") {
  for (const auto* name : {"8xA100-NVSwitch", "8xH100-NVSwitch", "4x8xH100-NDR", "16x16-TPUv4-torus"}) {
    CAPTURE(name);
    const auto cluster = load_cluster(test::config_path(std::string("clusters/") + name + ".toml"));
    const net::Topology topology(cluster);
    CHECK(topology.devices() == cluster.devices);
  }
  const auto ndr = load_cluster(test::config_path("clusters/4x8xH100-NDR.toml"));
  CHECK(ndr.nic_link.bandwidth_bytes_per_s == doctest::Approx(50e9));  // 400 Gb/s
  CHECK(ndr.nodes() == 4);
}

TEST_CASE("a cluster file names its device, and errors point at the key") {
  const auto dir = test::scratch_dir("cluster_file_test");
  write_device(dir);
  const std::string good = R"([cluster]
name = "t"
device = "tiny"
devices = 4
[topology]
kind = "ring"
[link]
bandwidth = "100GB/s"
latency = "1us"
)";
  const auto cluster = load_cluster_text(good, "c.toml", dir);
  CHECK(cluster.device.name == "tiny");
  CHECK(cluster.link.latency_s == doctest::Approx(1e-6));
  CHECK(cluster.collective.packet_bytes == 64 * 1024);

  auto bad = good;
  bad.replace(bad.find("100GB/s"), 7, "100GB");
  CHECK(error_of(bad, dir).find("c.toml:8:13: key 'link.bandwidth'") != std::string::npos);
  CHECK(error_of(good + "[topology2]\n", dir).find("topology2") != std::string::npos);
  auto torus = good;
  torus.replace(torus.find("\"ring\""), 6, "\"torus\"\ndims = [3, 3]");
  CHECK(error_of(torus, dir).find("topology.dims") != std::string::npos);
  auto missing = good;
  missing.replace(missing.find("tiny"), 4, "nonexistent-device");
  CHECK(error_of(missing, dir).find("cluster.device") != std::string::npos);
}

TEST_CASE("roofsim collective prints nccl-tests columns and writes a CSV, and bad options exit 2") {
  const auto dir = test::scratch_dir("collective_command_test");
  const auto result = test::run_roofsim(
      "collective --hw 8xA100-NVSwitch --min 1MB --max 64MB --factor 4 --algo ring --out " + dir.string());
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("algbw_GB/s  busbw_GB/s") != std::string::npos);
  CHECK(result.out.find("algo  proto  ch") != std::string::npos);
  CHECK(result.out.find("ring Simple   1") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "collective.csv"));
  CHECK(test::run_roofsim("collective --hw 8xA100-NVSwitch --algo hd --op alltoall").exit_code == 2);
  const auto validated = test::run_roofsim("validate " + test::config_path("clusters/4x8xH100-NDR.toml").string());
  CHECK(validated.exit_code == 0);
  CHECK(validated.out.find("ok (cluster)") != std::string::npos);
  CHECK(test::run_roofsim("collective --hw 8xA100-NVSwitch --set link.bandwidth=fast").exit_code == 2);
  CHECK(test::run_roofsim("collective --hw 8xA100-NVSwitch --proto LL64").exit_code == 2);
  CHECK(test::run_roofsim("collective --hw 8xH100-NVSwitch --algo switch --proto LL").exit_code == 2);
}

TEST_CASE("the collective table's header follows every --set: device, device count, links") {
  const auto result = test::run_roofsim(
      "collective --hw 8xH100-NVSwitch --min 1MB --max 1MB --set cluster.device=H200 --set cluster.devices=16 "
      "--set link.bandwidth=400GB/s --proto LL128 --channels 3");
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("on 16 x H200 (16 ranks") != std::string::npos);
  CHECK(result.out.find("# link 400 GB/s") != std::string::npos);
  CHECK(result.out.find("protocol LL128, ring channels 3") != std::string::npos);
}

TEST_CASE("roofsim collective on each bundled 8-GPU cluster prints the choice, the times and the prediction") {
  // The two single-node NVSwitch boxes and the two-node rail-optimised cluster (8 GPUs per node, one NIC each).
  for (const std::string cluster : {"8xA100-NVSwitch", "8xH100-NVSwitch", "2x8xA100-HDR-rail"}) {
    INFO(cluster);
    const auto result = test::run_roofsim("collective --hw " + cluster + " --min 64M --max 64M");
    REQUIRE(result.exit_code == 0);
    for (const char* column : {"algo", "proto", "ch", "time_us", "algbw_GB/s", "busbw_GB/s", "pred_us", "sim/pred"}) {
      CHECK(result.out.find(column) != std::string::npos);
    }
    // One row: the size, then the algorithm, protocol and channels auto chose.
    const auto row = result.out.find("67108864");
    REQUIRE(row != std::string::npos);
    const std::string line = result.out.substr(row, result.out.find('\n', row) - row);
    CHECK((line.find("ring") != std::string::npos || line.find("tree") != std::string::npos ||
           line.find("switch") != std::string::npos));
    CHECK((line.find("Simple") != std::string::npos || line.find("LL") != std::string::npos));
  }
}
