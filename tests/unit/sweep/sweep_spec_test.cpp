// Sweep files: axes as lists and ranges, grid and zip expansion, shards, and the errors of a bad sweep file.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "sim/core/input_error.h"
#include "sim/sweep/sweep_spec.h"

using namespace roofsim;

namespace {

const std::string kHeader = R"(
[sweep]
name = "t"
mode = "roofline"
hardware = "H100-SXM5"
workload = "gemm"
set = ["power.cap=450W"]
metrics = ["sim_time_s"]
)";

SweepSpec parse(const std::string& text) {
  return parse_sweep(kHeader + text, "t.toml", "/tmp");
}

// The message of the InputError `action` throws, or "" when it throws none.
template <typename Action>
std::string input_error_of(Action&& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// The error of parsing kHeader + `text`.
std::string error_of(const std::string& text) {
  return input_error_of([&] { (void)parse(text); });
}

// The error of parsing kHeader + `text` and checking its keys.
std::string keys_error_of(const std::string& text) {
  return input_error_of([&] { check_sweep_keys(parse(text)); });
}

}  // namespace

TEST_CASE("a 3x3 grid gives 9 points - the last axis fastest - each with the base and both axis overrides") {
  const auto spec = parse(R"(
[[axis]]
key = "memory.l2.capacity"
values = ["8MiB", "16MiB", "32MiB"]
[[axis]]
key = "workload.params.size"
values = [256, 512, 1024]
)");
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 9);
  const char* capacities[] = {"8MiB", "16MiB", "32MiB"};
  const char* sizes[] = {"256", "512", "1024"};
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 9; ++i) {
    CHECK(points[i].index == i);
    REQUIRE(points[i].overrides.size() == 3);
    CHECK(override_text(points[i].overrides[0]) == "power.cap=450W");
    CHECK(override_text(points[i].overrides[1]) == std::string("memory.l2.capacity=") + capacities[i / 3]);
    CHECK(override_text(points[i].overrides[2]) == std::string("workload.params.size=") + sizes[i % 3]);
    seen.insert(points[i].values[0] + "," + points[i].values[1]);
  }
  CHECK(seen.size() == 9);
  CHECK(spec.axes[0].scale == AxisScale::log);  // 8, 16, 32 MiB: a constant ratio
}

TEST_CASE("zipped axes take the i-th value of each") {
  const auto zipped = parse_sweep(kHeader + "combine = \"zip\"\n" + R"(
[[axis]]
key = "workload.params.size"
values = [256, 512]
[[axis]]
key = "workload.params.skinny"
values = [16, 48]
)",
                                  "t.toml", "/tmp");
  const auto points = expand_points(zipped);
  REQUIRE(points.size() == 2);
  CHECK(points[1].values == std::vector<std::string>{"512", "48"});
}

TEST_CASE("zipped axes of unequal length are an error naming the file - the position and both axes") {
  const auto error = error_of(std::string("combine = \"zip\"\n") + R"(
[[axis]]
key = "workload.params.size"
values = [256, 512, 1024]
[[axis]]
key = "workload.params.skinny"
values = [16, 32]
)");
  CHECK(error.find("t.toml:") == 0);
  CHECK(error.find("equal lengths") != std::string::npos);
  CHECK(error.find("workload.params.skinny\" has 2 values") != std::string::npos);
  CHECK(error.find("workload.params.size\" has 3") != std::string::npos);
}

TEST_CASE("ranges: a factor range is geometric and inclusive - a step range linear - both with a unit") {
  CHECK(range_values(1, 256, std::nullopt, 2.0, "") ==
        std::vector<std::string>{"1", "2", "4", "8", "16", "32", "64", "128", "256"});
  CHECK(range_values(1, 255, std::nullopt, 2.0, "").back() == "128");
  CHECK(range_values(0.5, 1.0, 0.1, std::nullopt, "TB/s") ==
        std::vector<std::string>{"0.5TB/s", "0.6TB/s", "0.7TB/s", "0.8TB/s", "0.9TB/s", "1TB/s"});
  const auto spec = parse(R"(
[[axis]]
key = "workload.params.size"
from = 128
to = 1024
step = 128
)");
  REQUIRE(spec.axes[0].values.size() == 8);
  CHECK(spec.axes[0].values[7] == "1024");
  CHECK(spec.axes[0].scale == AxisScale::linear);
}

TEST_CASE("axis errors name the key: both values and a range - both step and factor - factor <= 1") {
  CHECK(error_of(R"(
[[axis]]
key = "workload.params.size"
values = [1]
from = 1
to = 2
step = 1
)")
            .find("either values") != std::string::npos);
  CHECK(error_of(R"(
[[axis]]
key = "workload.params.size"
from = 1
to = 8
step = 1
factor = 2
)")
            .find("exactly one of step") != std::string::npos);
  const auto factor_error = error_of(R"(
[[axis]]
key = "workload.params.size"
from = 1
to = 8
factor = 1
)");
  CHECK(factor_error.find("'axis[0].factor' = 1: expected a number > 1") != std::string::npos);
  CHECK(factor_error.find("t.toml:") == 0);
  CHECK(error_of(R"(
[[axis]]
key = "workload.params.size"
valeus = [1]
)")
            .find("valeus") != std::string::npos);
}

TEST_CASE("numeric values read units so that axes of quantities are placed by value") {
  CHECK(numeric_value("64").value() == 64);
  CHECK(numeric_value("16MiB").value() == 16.0 * 1024 * 1024);
  CHECK(numeric_value("450W").value() == 450);
  CHECK(numeric_value("1.5TB/s").value() == doctest::Approx(1.5e12));
  CHECK_FALSE(numeric_value("open").has_value());
}

TEST_CASE("shards K/N cover every point exactly once") {
  for (const std::size_t shards : {1u, 2u, 3u, 7u, 20u}) {
    for (std::size_t index = 0; index < 17; ++index) {
      int owners = 0;
      for (std::size_t shard = 0; shard < shards; ++shard) owners += in_shard(index, shard, shards) ? 1 : 0;
      CHECK(owners == 1);
    }
  }
}

TEST_CASE("keys are checked before any point runs: an unknown hardware key - an undefined workload parameter") {
  // Known keys: a hardware key and a parameter the bundled gemm workload defines.
  CHECK(keys_error_of(R"(
[[axis]]
key = "memory.l2.capacity"
values = ["16MiB", "32MiB"]
[[axis]]
key = "workload.params.size"
values = [256, 512]
)")
            .empty());
  const auto hardware_error = keys_error_of(R"(
[[axis]]
key = "memory.l2.capasity"
values = ["16MiB"]
)");
  // kHeader takes lines 1-8 and the axis text starts with a line break: [[axis]] is line 10, its key line 11.
  CHECK(hardware_error.find("t.toml:11:7: key 'axis[0].key' = memory.l2.capasity: expected a known hardware key") == 0);
  const auto param_error = keys_error_of(R"(
[[axis]]
key = "workload.params.sise"
values = [1]
)");
  CHECK(param_error.find("'axis[0].key' = workload.params.sise") != std::string::npos);
  CHECK(param_error.find("one of: size, skinny") != std::string::npos);
  CHECK(keys_error_of(R"(
[[axis]]
key = "workload.bogus"
values = [1]
)")
            .find("a known workload key") != std::string::npos);
}

TEST_CASE("an empty list of values is an error naming the axis") {
  const auto error = error_of(R"(
[[axis]]
key = "workload.params.size"
values = []
)");
  CHECK(error.find("t.toml:") == 0);
  CHECK(error.find("'axis[0].values' = []: expected a non-empty array") != std::string::npos);
}

TEST_CASE("a cluster sweep's keys are cluster keys - as roofsim run --hw CLUSTER takes them") {
  const auto spec_with_axis = [](const std::string& key) {
    return parse_sweep(R"([sweep]
name = "c"
hardware = "8xH100-NVSwitch"
workload = "tp_decode"
metrics = ["sim_time_s"]
[[axis]]
key = ")" + key + R"("
values = ["100GB/s", "450GB/s"]
)",
                       "c.toml", "/tmp");
  };
  CHECK(resolve_sweep_hardware("8xH100-NVSwitch").parent_path().filename() == "clusters");
  check_sweep_keys(spec_with_axis("link.bandwidth"));
  CHECK_THROWS_WITH_AS(check_sweep_keys(spec_with_axis("memory.l2.capacity")),
                       doctest::Contains("expected a known cluster key"), InputError);
}

TEST_CASE("a hardware axis runs each point on its own device and sets no key, and its values must be devices") {
  const auto spec = parse(R"(
[[axis]]
key = "hardware"
values = ["H100-SXM5", "A100-SXM4-80GB"]
[[axis]]
key = "workload.params.size"
values = [256, 512]
)");
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 4);
  const char* devices[] = {"H100-SXM5", "H100-SXM5", "A100-SXM4-80GB", "A100-SXM4-80GB"};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(points[i].hardware == devices[i]);
    REQUIRE(points[i].overrides.size() == 2);  // the base override and the size: no "hardware=" override
    CHECK(points[i].overrides[1].key == "workload.params.size");
  }
  check_sweep_keys(spec);
  // Without a hardware axis every point runs on the base device.
  const auto plain = parse("[[axis]]\nkey = \"workload.params.size\"\nvalues = [256]\n");
  CHECK(expand_points(plain).front().hardware == "H100-SXM5");

  const auto error_of_values = [](const std::string& values) {
    return keys_error_of("[[axis]]\nkey = \"hardware\"\nvalues = " + values + "\n");
  };
  CHECK(error_of_values(R"(["H100-SXM5", "H101"])").find("axis[0].values") != std::string::npos);
  CHECK(error_of_values(R"(["H100-SXM5", "H101"])").find("H101") != std::string::npos);
  // A cluster where the base hardware is a device takes other keys: refused before any point runs.
  CHECK(error_of_values(R"(["8xH100-NVSwitch"])").find("a device file, as sweep.hardware is") != std::string::npos);
}

TEST_CASE("a workload axis runs each point on its own workload, and a parameter set must be defined by every one") {
  const auto spec = parse(R"(
[[axis]]
key = "workload"
values = ["gemm", "stream"]
)");
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 2);
  CHECK(points[0].workload == "gemm");
  CHECK(points[1].workload == "stream");
  CHECK(points[1].hardware == "H100-SXM5");
  CHECK(points[1].overrides.size() == 1);  // the base override only
  check_sweep_keys(spec);
  // `size` is a parameter of gemm.toml, not of stream.toml: refused for naming the workload that lacks it.
  CHECK(keys_error_of(R"(
[[axis]]
key = "workload"
values = ["gemm", "stream"]
[[axis]]
key = "workload.params.size"
values = [256]
)")
            .find("stream.toml defines") != std::string::npos);
}

TEST_CASE("a model axis runs each point with --model, and the workload keys it sets are the model's") {
  const std::string header = R"(
[sweep]
name = "models"
mode = "roofline"
hardware = "H100-SXM5"
set = ["workload.phase=decode", "workload.batch=8"]
metrics = ["sim_time_s"]
)";
  const auto spec = parse_sweep(header + R"(
[[axis]]
key = "model"
values = ["llama3_8b", "models/mine.json"]

[[axis]]
key = "workload.context"
values = [1024, 4096]
)",
                                "t.toml", "/sweeps");
  CHECK(spec.workload.empty());
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 4);
  CHECK(points[0].model == "llama3_8b");
  CHECK(points[0].workload.empty());
  CHECK(points[3].model == "/sweeps/models/mine.json");
  // The model axis sets no key; the base overrides and the context axis do.
  REQUIRE(points[1].overrides.size() == 3);
  CHECK(override_text(points[1].overrides[2]) == "workload.context=4096");

  // The keys of a model's workload, checked before any point runs: the model exists, the keys are the model's, each
  // value one the key takes; errors at the sweep file's line.
  const auto keys_error = [&](const std::string& text) {
    return input_error_of([&] { check_sweep_keys(parse_sweep(header + text, "t.toml", "/tmp")); });
  };
  const std::string ok = "[[axis]]\nkey = \"model\"\nvalues = [\"llama3_8b\", \"mixtral_8x7b\"]\n";
  CHECK(keys_error(ok).empty());
  const auto missing = keys_error("[[axis]]\nkey = \"model\"\nvalues = [\"llama9_8b\"]\n");
  CHECK(missing.find("t.toml:10") != std::string::npos);
  CHECK(missing.find("llama9_8b") != std::string::npos);
  CHECK(missing.find("a bundled model") != std::string::npos);
  const auto param = keys_error(ok + "[[axis]]\nkey = \"workload.params.batch\"\nvalues = [1, 2]\n");
  CHECK(param.find("t.toml:12") != std::string::npos);
  CHECK(param.find("workload.params.batch") != std::string::npos);
  CHECK(param.find("workload.phase, workload.batch") != std::string::npos);
  const auto value = keys_error(ok + "[[axis]]\nkey = \"workload.tp\"\nvalues = [1, 0]\n");
  CHECK(value.find("t.toml:13") != std::string::npos);
  CHECK(value.find("'workload.tp' = 0: expected an integer >= 1") != std::string::npos);
  const auto phase = keys_error(ok + "[[axis]]\nkey = \"workload.phase\"\nvalues = [\"decode\", \"serve\"]\n");
  CHECK(phase.find("expected prefill, decode or train") != std::string::npos);

  // sweep.model runs one model; it and sweep.workload exclude each other, as a model axis and a workload file do.
  const auto based = parse_sweep(R"(
[sweep]
name = "m"
hardware = "H100-SXM5"
model = "llama3_70b"
metrics = ["sim_time_s"]

[[axis]]
key = "workload.batch"
values = [1, 8]
)",
                                 "t.toml", "/tmp");
  CHECK(expand_points(based)[1].model == "llama3_70b");
  CHECK_NOTHROW(check_sweep_keys(based));
  CHECK_THROWS_WITH_AS(
      (void)parse_sweep("[sweep]\nname = \"m\"\nhardware = \"H100-SXM5\"\nworkload = \"gemm\"\nmodel = \"llama3_8b\"\n"
                        "metrics = [\"sim_time_s\"]\n[[axis]]\nkey = \"workload.batch\"\nvalues = [1]\n",
                        "t.toml", "/tmp"),
      doctest::Contains("either workload or model"), InputError);
  CHECK_THROWS_WITH_AS(
      (void)parse_sweep("[sweep]\nname = \"m\"\nhardware = \"H100-SXM5\"\nworkload = \"gemm\"\nmetrics = "
                        "[\"sim_time_s\"]\n[[axis]]\nkey = \"model\"\nvalues = [\"llama3_8b\"]\n",
                        "t.toml", "/tmp"),
      doctest::Contains("without a workload file"), InputError);
  CHECK_THROWS_WITH_AS((void)parse_sweep("[sweep]\nname = \"m\"\nhardware = \"H100-SXM5\"\nmetrics = "
                                         "[\"sim_time_s\"]\n[[axis]]\nkey = \"workload.batch\"\nvalues = [1]\n",
                                         "t.toml", "/tmp"),
                       doctest::Contains("sweep.workload"), InputError);
}
