// Bad input that once ran for minutes, ate the machine or ended in "internal error": each is now exit 2 within a
// second, with a message that names where the value was given, the key, the value and the range or limit. Out-of-range
// values (from a file, --set or a sweep axis), input files that are not regular files or too large or whose names are
// too long, and work past the limits (ops, tiles, sweep points, devices, compute units, message chunks, compulsory
// DRAM traffic) unless --allow-large.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

// Runs roofsim and checks exit 2 within a second, every needle in stderr, and no internal error.
void expect_refused(const std::string& args, const std::vector<std::string>& needles) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = test::run_roofsim(args);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  INFO("roofsim " << args);
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 2);
  CHECK(elapsed.count() < 1.0);
  CHECK(result.err.find("internal error") == std::string::npos);
  for (const auto& needle : needles) CHECK(result.err.find(needle) != std::string::npos);
}

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

std::string h100() {
  return quoted(test::config_path("H100-SXM5.toml"));
}

// A workload file in `dir` of one fp16 GEMM named `name`, m x n x k given as their TOML text.
std::filesystem::path gemm_file(const std::filesystem::path& dir, const std::string& name, const std::string& m,
                                const std::string& n, const std::string& k) {
  return test::write_file(dir / (name + ".toml"), "[workload]\nname = \"" + name + "\"\n[[op]]\nname = \"" + name +
                                                      "\"\nkind = \"gemm\"\ndtype = \"fp16\"\nm = " + m + "\nn = " + n +
                                                      "\nk = " + k + "\n");
}

// A workload file in `dir` of transformer blocks (width 1024, 16 heads): `before` goes between [workload] and the
// template, `keys` are the template's further keys.
std::filesystem::path blocks_file(const std::filesystem::path& dir, const std::string& name, const std::string& before,
                                  const std::string& keys) {
  return test::write_file(dir / (name + ".toml"), "[workload]\nname = \"" + name + "\"\n" + before +
                                                      "[[template]]\nname = \"blocks\"\nkind = "
                                                      "\"transformer_block\"\nhidden = 1024\nheads = 16\n" +
                                                      keys);
}

// A bundled cluster file with another device count, its device named by path.
std::filesystem::path cluster_with_devices(const std::filesystem::path& dir, const std::string& devices) {
  std::string text = test::read_file(test::config_path("clusters/8xH100-NVSwitch.toml"));
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("devices = 8", "devices = " + devices);
  replace("device = \"H100-SXM5\"", "device = \"" + test::config_path("H100-SXM5.toml").string() + "\"");
  return test::write_file(dir / ("cluster-" + devices + ".toml"), text);
}

}  // namespace

TEST_CASE("--set values outside their physical range: exit 2 naming the --set, the key and the range") {
  expect_refused("validate " + h100() + " --set dram.data_rate=1e8Gb/s",
                 {"--set dram.data_rate=1e8Gb/s", "dram.data_rate", "12.5 MB/s .. 12.5 GB/s"});
  expect_refused("validate " + h100() + " --set compute.engines.matrix.clock=1e300GHz",
                 {"--set compute.engines.matrix.clock=1e300GHz", "1 MHz .. 100 GHz"});
  expect_refused("validate " + h100() + " --set memory.l2.bytes_per_cycle=nan",
                 {"memory.l2.bytes_per_cycle", "nan", "0.001 .. 1e+08"});
  for (const auto* value : {"nan", "inf", "-inf", "-5"}) {
    expect_refused("validate " + h100() + " --set device.peak_flops.bf16=" + value,
                   {std::string("--set device.peak_flops.bf16=") + value, "0.001 .. 1e+06"});
  }
  for (const auto* value : {"1e300GHz", "1e-300GHz"}) {
    expect_refused("validate " + h100() + " --set memory.l2.clock=" + value, {"memory.l2.clock", "1 MHz .. 100 GHz"});
  }
  for (const auto* value : {"1e300GB/s", "1e-300GB/s"}) {
    expect_refused("validate " + h100() + " --set interconnect.link_bandwidth=" + value,
                   {"interconnect.link_bandwidth", "1 kB/s .. 10 PB/s"});
    expect_refused("collective --hw 8xH100-NVSwitch --set link.bandwidth=" + std::string(value),
                   {"link.bandwidth", "1 kB/s .. 10 PB/s"});
  }
  const auto out = test::scratch_dir("bounded-inputs-units");
  expect_refused("run --hw H100-SXM5 --workload gemm --set compute.units=100000000 --out " + quoted(out / "a"),
                 {"compute.units", "1 .. 1000000"});
  expect_refused(
      "run --hw H100-SXM5 --workload gemm --set compute.occupancy=4611686018427387904 --out " + quoted(out / "b"),
      {"compute.occupancy", "1 .. 64"});
  CHECK_FALSE(std::filesystem::exists(out / "a"));
}

TEST_CASE("a value outside its range in a file: exit 2 naming file:line, the key and the range") {
  const auto dir = test::scratch_dir("bounded-inputs-file");
  std::string text = test::read_file(test::config_path("H100-SXM5.toml"));
  const auto at = text.find("units = 132");
  REQUIRE(at != std::string::npos);
  text.replace(at, 11, "units = 100000000");
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n' ? 1 : 0;
  const auto file = test::write_file(dir / "h.toml", text);
  expect_refused("validate " + quoted(file),
                 {file.string() + ":" + std::to_string(line) + ":", "compute.units", "100000000", "1 .. 1000000"});
}

TEST_CASE("clusters of 2^62 devices are refused by validate, run and collective, 100,000 only with --allow-large") {
  const auto dir = test::scratch_dir("bounded-inputs-cluster");
  const auto huge = cluster_with_devices(dir, "4611686018427387904");
  const std::vector<std::string> range = {huge.string() + ":", "cluster.devices", "1 .. 16777216"};
  expect_refused("validate " + quoted(huge), range);
  expect_refused("run --hw " + quoted(huge) + " --workload collectives --out " + quoted(dir / "out"), range);
  expect_refused("collective --hw " + quoted(huge), range);

  const auto large = cluster_with_devices(dir, "100000");
  const std::vector<std::string> limit = {large.string() + ":", "100000 devices, above the limit of 65536 devices",
                                          "--allow-large"};
  expect_refused("validate " + quoted(large), limit);
  expect_refused("collective --hw " + quoted(large), limit);
  const auto allowed = test::run_roofsim("validate --allow-large " + quoted(large));
  INFO(allowed.err);
  CHECK(allowed.exit_code == 0);
}

TEST_CASE("workloads: 2^63 layers, an op count past the limit and a conv2d of height 2^62 are exit 2 naming the op") {
  const auto dir = test::scratch_dir("bounded-inputs-workload");
  const auto layers = blocks_file(dir, "layers", "", "layers = 9223372036854775807\n");
  expect_refused("validate " + quoted(layers), {layers.string() + ":8:", "template 'blocks'", "layers", "1 .. 10000"});
  expect_refused("roofline --hw H100-SXM5 --workload " + quoted(layers) + " --out " + quoted(dir / "r"),
                 {"template 'blocks'"});

  const auto many =
      blocks_file(dir, "many", "[params]\nlayers = 10000\n", "tensor_parallel = 2\nlayers = \"layers\"\n");
  expect_refused("validate " + quoted(many),
                 {many.string() + ":5:", "120000 ops, above the limit of 100000 ops", "--allow-large"});
  expect_refused("run --hw H100-SXM5 --workload " + quoted(many) + " --out " + quoted(dir / "o"), {"--allow-large"});

  const auto conv = test::write_file(dir / "conv.toml", R"([workload]
name = "conv"
[[op]]
name = "tall"
kind = "conv2d"
channels = 3
height = 4611686018427387904
width = 224
filters = 64
kernel_h = 7
)");
  expect_refused("validate " + quoted(conv), {conv.string() + ":7:", "op 'tall'", "height", "1 .. 1099511627776"});
  expect_refused("run --hw H100-SXM5 --workload " + quoted(conv) + " --out " + quoted(dir / "c"), {"op 'tall'"});
}

TEST_CASE("a run past the tile limit is refused before it starts, naming the limit and --allow-large") {
  const auto dir = test::scratch_dir("bounded-inputs-tiles");
  const auto wide = gemm_file(dir, "wide", "2097152", "2097152", "64");
  expect_refused("run --hw H100-SXM5 --workload " + quoted(wide) + " --out " + quoted(dir / "o"),
                 {wide.string(), "134217728 tiles, above the limit of 100000000 tiles", "--allow-large"});
  CHECK_FALSE(std::filesystem::exists(dir / "o"));
}

TEST_CASE("sweeps: a range to nan, three axes of 99,999 values and an out-of-range axis value are exit 2") {
  const auto dir = test::scratch_dir("bounded-inputs-sweep");
  const std::string header =
      "[sweep]\nname = \"s\"\nhardware = \"H100-SXM5\"\nworkload = \"gemm\"\n"
      "metrics = [\"sim_time_s\"]\n";
  const auto axis = [](const std::string& key, const std::string& to) {
    return "[[axis]]\nkey = \"" + key + "\"\nfrom = 1\nto = " + to + "\nstep = 1\n";
  };
  const auto nan = test::write_file(dir / "nan.toml", header + axis("workload.params.size", "nan"));
  expect_refused("validate " + quoted(nan), {nan.string() + ":9:", "axis[0].to", "nan", "a finite number"});
  expect_refused("sweep " + quoted(nan) + " --list", {"axis[0].to"});

  const auto cube = test::write_file(dir / "cube.toml", header + axis("workload.params.size", "99999") +
                                                            axis("compute.units", "99999") +
                                                            axis("memory.l2.bytes_per_cycle", "99999"));
  const std::vector<std::string> limit = {cube.string() + ":6:", "999970000299999 points",
                                          "above the limit of 100000 points", "--allow-large"};
  expect_refused("validate " + quoted(cube), limit);
  expect_refused("sweep " + quoted(cube) + " --list", limit);
  expect_refused("sweep " + quoted(cube) + " --out " + quoted(dir / "out"), limit);

  const auto clock = test::write_file(
      dir / "clock.toml",
      header + "[[axis]]\nkey = \"compute.engines.matrix.clock\"\nvalues = [\"1GHz\", \"1e300GHz\"]\n");
  expect_refused("validate " + quoted(clock),
                 {clock.string() + ":8:", "axis[0].values", "1e300GHz", "1 MHz .. 100 GHz"});
  expect_refused("sweep " + quoted(clock) + " --list", {"axis[0].values"});
}

TEST_CASE("only regular input files of at most 64 MiB are read, other paths are exit 2 naming them") {
  const auto dir = test::scratch_dir("bounded-inputs-files");
  expect_refused("validate " + quoted(dir), {dir.string(), "is a folder"});
  expect_refused("validate /dev/zero", {"/dev/zero", "not a regular file"});
  const auto fifo = dir / "fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  expect_refused("validate " + quoted(fifo), {fifo.string(), "not a regular file"});
  expect_refused("run --hw " + quoted(fifo) + " --workload gemm --out " + quoted(dir / "o"), {fifo.string()});
  expect_refused("run --hw H100-SXM5 --workload " + quoted(fifo) + " --out " + quoted(dir / "o"), {fifo.string()});
  expect_refused("sweep " + quoted(fifo), {fifo.string()});

  const auto big = dir / "big.toml";
  std::ofstream(big) << "[device]\n";
  std::filesystem::resize_file(big, (64U << 20) + 1);  // sparse: no disk space used
  expect_refused("validate " + quoted(big), {big.string(), "at most 67108864 bytes"});

  const std::string long_name(300, 'a');
  expect_refused("validate " + quoted(dir / (long_name + ".toml")), {long_name, "File name too long"});
  expect_refused("run --hw " + long_name + " --workload gemm --out " + quoted(dir / "o"), {long_name});
  expect_refused("run --hw H100-SXM5 --workload " + long_name + " --out " + quoted(dir / "o"), {long_name});
  expect_refused("sweep " + long_name, {long_name});
  expect_refused("collective --hw " + long_name, {long_name});

  std::string hardware = test::read_file(test::config_path("H100-SXM5.toml"));
  const auto standard = hardware.find("standard = \"HBM3-6400\"");
  REQUIRE(standard != std::string::npos);
  hardware.replace(standard, 22, "standard = \"" + long_name + "\"");
  const auto device = test::write_file(dir / "long-standard.toml", hardware);
  expect_refused("validate " + quoted(device), {device.string() + ":", "dram.standard"});
  const auto cluster = cluster_with_devices(dir, "8");
  std::string cluster_text = test::read_file(cluster);
  const auto named = cluster_text.find("device = \"");
  cluster_text.replace(named, cluster_text.find('\n', named) - named, "device = \"" + long_name + "\"");
  test::write_file(cluster, cluster_text);
  expect_refused("validate " + quoted(cluster), {cluster.string() + ":", "cluster.device"});
}

TEST_CASE("--allow-large is offered by run, roofline, validate, sweep and collective") {
  for (const auto* command : {"run", "roofline", "validate", "sweep", "collective"}) {
    CAPTURE(command);
    const auto help = test::run_roofsim(std::string(command) + " --help");
    CHECK(help.out.find("--allow-large") != std::string::npos);
  }
}

TEST_CASE("values at the ends of their ranges that the models cannot hold are exit 2, not bad_alloc or a crash") {
  const auto dir = test::scratch_dir("bounded_inputs_range_ends");
  const auto small = gemm_file(dir, "small", "512", "512", "512");
  const auto run = "run --hw " + h100() + " --workload " + quoted(small) + " --out " + quoted(dir / "o");
  // A million units elaborate a million modules: SystemC's allocator crashed once memory ran out.
  expect_refused(run + " --set compute.units=1000000",
                 {"1000000 compute units, above the limit of 65536 compute units", "--allow-large"});
  // 1 TiB of L2 tracked in 4 KiB blocks: 2^28 tags (8 GiB) allocated before the first op.
  expect_refused(run + " --set memory.l2.capacity=1TiB", {"memory.l2.capacity", "at most 16777216 tracked blocks"});
  // 64 bank groups of 4 banks: the controller keeps a channel's banks as the bits of one word.
  std::string standard = test::read_file(test::config_path("dram/HBM3-6400.toml"));
  const auto groups = standard.find("bank_groups = ");
  REQUIRE(groups != std::string::npos);
  standard.replace(groups, standard.find('\n', groups) - groups, "bank_groups = 64");
  const auto standard_file = test::write_file(dir / "HBM3-many-banks.toml", standard);
  expect_refused("dram --hw " + quoted(standard_file) + " --pattern stream --bytes 1MiB --out " + quoted(dir / "d"),
                 {standard_file.string() + ":", "organization.banks_per_group", "at most 64 banks"});
  // A 1-byte chunk of a 4 MiB message: four million chunks per step.
  expect_refused("collective --hw 8xH100-NVSwitch --min 1MiB --max 4MiB --chunk 1B --out " + quoted(dir / "c"),
                 {"--chunk 1B", "4194304 chunks, above the limit of 65536 chunks", "--allow-large"});
}

TEST_CASE("a run whose compulsory DRAM traffic is past 16 TiB is refused before it starts (a GEMM with k = 2^40)") {
  const auto dir = test::scratch_dir("bounded-inputs-traffic");
  const auto deep = gemm_file(dir, "deep", "1", "8192", "1099511627776");
  // B alone is k x n x 2 bytes = 2^40 x 2^13 x 2 = 2^54 bytes, past the 2^44-byte limit.
  expect_refused(
      "run --hw H100-SXM5 --workload " + quoted(deep) + " --out " + quoted(dir / "o"),
      {deep.string(), "bytes of compulsory DRAM traffic, above the limit of 17592186044416", "--allow-large"});
}

TEST_CASE("a DRAM command timing past 10 us is exit 2 naming the file, the key and the range") {
  const auto dir = test::scratch_dir("bounded-inputs-dram-timing");
  std::string text = test::read_file(test::config_path("dram/HBM3-6400.toml"));
  const auto at = text.find("\ntCCD_S = ");
  REQUIRE(at != std::string::npos);
  const auto slow = test::write_file(dir / "slow.toml",
                                     text.substr(0, at) + "\ntCCD_S = \"1ms\"" + text.substr(text.find('\n', at + 1)));
  expect_refused("dram --hw " + quoted(slow) + " --pattern random --bytes 1MiB --out " + quoted(dir / "o"),
                 {slow.string(), "timing.tCCD_S", "0 s .. 10 us"});
}
