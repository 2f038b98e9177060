// Every numeric key has a physical range in its schema row: each default lies inside it, and a value outside it (NaN,
// infinities, negatives, 1e300 GHz, a hundred million units) is an InputError naming where it was given, the key, the
// value and the range, whether it comes from a file, a --set or a time in cycles converted with its clock.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/config/cluster_params.h"
#include "sim/config/config_document.h"
#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"
#include "sim/graph/workload.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::vector<const KeyRegistry*> all_registries() {
  return {&hardware_registry(), &dram_standard_registry(), &cluster_registry(), &workload_registry(),
          &sweep_registry()};
}

// The default of a row in base units, or NaN when it has none that a range applies to (a time in cycles).
double default_in_base_units(const KeySpec& spec) {
  const std::string text(spec.default_value);
  switch (spec.kind) {
    case ValueKind::quantity: {
      if (spec.quantity == QuantityKind::bytes) return static_cast<double>(parse_bytes(text).value());
      const auto parsed = parse_quantity(text, spec.quantity);
      REQUIRE(parsed.has_value());
      return parsed->in_cycles ? std::nan("") : parsed->value;
    }
    case ValueKind::real: return std::stod(text);
    default: return static_cast<double>(std::stoll(text));
  }
}

const KeySpec& row(const KeyRegistry& registry, const std::string& path) {
  const KeySpec* spec = registry.find(split_key_path(path));
  REQUIRE_MESSAGE(spec != nullptr, path);
  return *spec;
}

// The message of loading the H100 file with one override, or "" when it loads.
std::string hardware_error(const std::string& key, const std::string& value) {
  try {
    (void)load_hardware(test::config_path("H100-SXM5.toml"), {Override{key, value}});
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every numeric key of every file kind has a range, and its default lies inside it") {
  for (const auto* registry : all_registries()) {
    for (const auto& spec : registry->specs()) {
      INFO(registry->file_kind() << " key " << spec.path);
      const bool numeric = spec.kind == ValueKind::quantity || spec.kind == ValueKind::count ||
                           spec.kind == ValueKind::integer || spec.kind == ValueKind::real ||
                           spec.kind == ValueKind::integer_list || spec.kind == ValueKind::expression;
      CHECK(spec.range.has_value() == numeric);
      if (!spec.range || spec.default_value.empty() || spec.kind == ValueKind::integer_list) continue;
      const double value = default_in_base_units(spec);
      if (std::isnan(value)) continue;
      CHECK(spec.range->contains(value));
    }
  }
}

TEST_CASE("a range refuses NaN, takes 0 only where 0 means none, and reads in the key's unit") {
  CHECK_FALSE(schema::within(0, 1).contains(std::nan("")));
  CHECK_FALSE(schema::within(1, 2).contains(0));
  CHECK(schema::zero_or_within(1, 2).contains(0));
  CHECK_FALSE(schema::zero_or_within(1, 2).contains(1e-300));
  CHECK(range_text(row(hardware_registry(), "compute.engines.matrix.clock")) == "1 MHz .. 100 GHz");
  CHECK(range_text(row(hardware_registry(), "interconnect.link_bandwidth")) == "0, or 1 kB/s .. 10 PB/s");
  CHECK(range_text(row(hardware_registry(), "compute.units")) == "1 .. 1000000");
  CHECK(range_text(row(sweep_registry(), "axis.[].to")) == "finite");
  CHECK(range_text(row(hardware_registry(), "device.name")).empty());
}

TEST_CASE("--set values outside their key's range are refused, naming the --set, the key and the range") {
  struct Case {
    std::string key, value, range;
  };
  const std::vector<Case> cases = {
      {"dram.data_rate", "1e8Gb/s", "12.5 MB/s .. 12.5 GB/s"},
      {"compute.engines.matrix.clock", "1e300GHz", "1 MHz .. 100 GHz"},
      {"compute.engines.matrix.clock", "1e-300GHz", "1 MHz .. 100 GHz"},
      {"memory.l2.clock", "1e300Hz", "1 MHz .. 100 GHz"},
      {"memory.l2.bytes_per_cycle", "nan", "0.001 .. 1e+08"},
      {"memory.l2.bytes_per_cycle", "inf", "0.001 .. 1e+08"},
      {"device.peak_flops.bf16", "nan", "0.001 .. 1e+06"},
      {"device.peak_flops.bf16", "inf", "0.001 .. 1e+06"},
      {"device.peak_flops.bf16", "-inf", "0.001 .. 1e+06"},
      {"device.peak_flops.bf16", "-1", "0.001 .. 1e+06"},
      {"device.peak_dram_bandwidth", "1e300TB/s", "1 kB/s .. 10 PB/s"},
      {"device.peak_dram_bandwidth", "1e-300TB/s", "1 kB/s .. 10 PB/s"},
      {"interconnect.link_bandwidth", "1e300GB/s", "of 0 or in 1 kB/s .. 10 PB/s"},
      {"interconnect.link_bandwidth", "1e-300GB/s", "of 0 or in 1 kB/s .. 10 PB/s"},
      {"compute.units", "100000000", "1 .. 1000000"},
      {"compute.occupancy", "4611686018427387904", "1 .. 64"},
      {"power.window", "1e-300s", "1 ns .. 1 s"},
  };
  for (const auto& c : cases) {
    INFO("--set " << c.key << "=" << c.value);
    const auto message = hardware_error(c.key, c.value);
    CHECK(message.find("--set " + c.key + "=" + c.value) != std::string::npos);
    CHECK(message.find(c.key) != std::string::npos);
    CHECK(message.find(c.range) != std::string::npos);
  }
  CHECK(hardware_error("compute.units", "1000000").empty());
  CHECK(hardware_error("device.peak_flops.bf16", "989.4").empty());
}

TEST_CASE("a time given in cycles is range-checked once its clock converts it") {
  const auto message = hardware_error("memory.l2.latency", "1e12cycles");
  CHECK(message.find("memory.l2.latency") != std::string::npos);
  CHECK(message.find("0 s .. 1 ms") != std::string::npos);
  CHECK(hardware_error("memory.l2.latency", "300cycles").empty());
}

TEST_CASE("a value for a later --set is checked against its key without a file") {
  CHECK(override_value_problem(hardware_registry(), "compute.units", "66") == std::nullopt);
  CHECK(override_value_problem(hardware_registry(), "compute.units", "100000000").value_or("").find("1 .. 1000000") !=
        std::string::npos);
  CHECK(override_value_problem(hardware_registry(), "memory.l2.capacity", "16GHz").has_value());
  CHECK(override_value_problem(hardware_registry(), "memory.l2.capacityy", "16MiB").value_or("").find("known") !=
        std::string::npos);
  CHECK(override_value_problem(workload_registry(), "params.batch", "8") == std::nullopt);
}

TEST_CASE("a cluster of 2^62 devices and a torus whose dimensions overflow are input errors") {
  const auto dir = test::scratch_dir("key-ranges-cluster");
  const auto error_of = [&](const std::string& devices, const std::string& dims) {
    try {
      (void)load_cluster_text("[cluster]\nname = \"c\"\ndevice = \"" + test::config_path("TPU-v4.toml").string() +
                                  "\"\ndevices = " + devices + "\n[topology]\nkind = \"torus\"\ndims = " + dims +
                                  "\n[link]\nbandwidth = \"50GB/s\"\n",
                              "c.toml", dir);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  CHECK(error_of("4611686018427387904", "[2, 2]").find("c.toml:4:11: key 'cluster.devices'") != std::string::npos);
  CHECK(error_of("16", "[16777216, 16777216, 16777216]").find("topology.dims") != std::string::npos);
  CHECK(error_of("16", "[4, 4]").empty());
}

TEST_CASE("workload shapes outside their range name the op, and products that overflow name it too") {
  const auto dir = test::scratch_dir("key-ranges-workload");
  const auto error_of = [&](const std::string& op) {
    const auto file =
        test::write_file(dir / "w.toml", "[workload]\nname = \"w\"\n[params]\nbig = 4611686018427387904\n" + op);
    try {
      (void)build_workload(file, {});
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string conv =
      "[[op]]\nname = \"conv\"\nkind = \"conv2d\"\nchannels = 3\nwidth = 224\nfilters = 64\n"
      "kernel_h = 7\n";
  const auto literal = error_of(conv + "height = 4611686018427387904\n");
  CHECK(literal.find("w.toml:") != std::string::npos);
  CHECK(literal.find("op 'conv'") != std::string::npos);
  CHECK(literal.find("height") != std::string::npos);
  CHECK(literal.find("1 .. 1099511627776") != std::string::npos);
  const auto expression = error_of(conv + "height = \"big\"\n");
  CHECK(expression.find("op 'conv'") != std::string::npos);
  CHECK(expression.find("it evaluates to 4611686018427387904") != std::string::npos);
  const auto product = error_of(
      "[[op]]\nname = \"conv\"\nkind = \"conv2d\"\nbatch = 1099511627776\nchannels = 3\n"
      "height = 1099511627776\nwidth = 1099511627776\nfilters = 64\nkernel_h = 1\n");
  CHECK(product.find("op 'conv' (conv2d): a count overflows 64 bits") != std::string::npos);
  const auto layers = error_of(
      "[[template]]\nname = \"blocks\"\nkind = \"mlp\"\nhidden = 64\n"
      "layers = 9223372036854775807\n");
  CHECK(layers.find("template 'blocks'") != std::string::npos);
  CHECK(layers.find("layers") != std::string::npos);
  CHECK(layers.find("1 .. 10000") != std::string::npos);
}
