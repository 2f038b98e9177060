// The schema rows of the hardware, DRAM standard and cluster files cannot drift from what stage 2 reads: every row
// with a default fills a member or is marked as read by hand, every bound default parses into its member, a member's
// type matches its row's kind, and choices and parsing come from the one table of enum spellings.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sim/config/cluster_params.h"
#include "sim/config/config_document.h"
#include "sim/config/enum_spellings.h"
#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"

using namespace roofsim;
using namespace roofsim::schema;

namespace {

std::vector<const KeyRegistry*> bound_registries() {
  return {&hardware_registry(), &dram_standard_registry(), &cluster_registry()};
}

// A concrete section path for the parent of a row's pattern: "memory.<name>.capacity" -> "memory.x",
// "power.dvfs.[].clock" -> "power.dvfs[0]".
std::string parent_section(const KeySpec& spec) {
  auto segments = split_key_path(spec.path);
  segments.pop_back();
  std::string path;
  for (const auto& segment : segments) {
    if (segment == "[]") {
      path += "[0]";
      continue;
    }
    if (!path.empty()) path += ".";
    path += segment == "<name>" ? "x" : segment == "<dtype>" ? "fp32" : segment;
  }
  return path;
}

std::string error_of(std::string_view text, const KeyRegistry& registry) {
  try {
    const ConfigDocument document(text, "t.toml", registry);
    document.check();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

template <class Enum>
void check_round_trip() {
  for (const auto& spelling : EnumSpellings<Enum>::kAll) {
    CHECK(parse_enum<Enum>(spelling.text) == spelling.value);
    CHECK(to_string(spelling.value) == spelling.text);
  }
  CHECK_FALSE(parse_enum<Enum>("no-such-spelling").has_value());
}

}  // namespace

TEST_CASE("every schema row with a default fills a member or is marked as read by hand") {
  for (const auto* registry : bound_registries()) {
    for (const auto& spec : registry->specs()) {
      if (spec.default_value.empty()) continue;
      INFO(registry->file_kind() << " key " << spec.path);
      CHECK((spec.field.binds() || spec.field.read_by_hand()));
    }
  }
}

TEST_CASE("every bound row's default parses into its member") {
  static const toml::table kEmpty;
  for (const auto* registry : bound_registries()) {
    const ConfigDocument document(std::string_view(), "(defaults)", *registry);
    for (const auto& spec : registry->specs()) {
      if (!spec.field.binds() || spec.default_value.empty()) continue;
      INFO(registry->file_kind() << " key " << spec.path << " = " << spec.default_value);
      const ConfigSection section(document, kEmpty, parent_section(spec));
      CHECK_NOTHROW(spec.field.parse_only(section, spec));
    }
  }
}

TEST_CASE("bound rows are values, and sections bind nothing") {
  for (const auto* registry : bound_registries()) {
    for (const auto& spec : registry->specs()) {
      INFO(registry->file_kind() << " key " << spec.path);
      if (spec.kind == ValueKind::section || spec.kind == ValueKind::section_array) {
        CHECK_FALSE(spec.field.binds());
        CHECK_FALSE(spec.field.read_by_hand());
      }
      if (spec.field.type() == FieldType::enumeration) CHECK(spec.choices == spec.field.choices());
    }
  }
}

TEST_CASE("a row whose member cannot hold its kind of value, or whose choices are not its enum's, is refused") {
  CHECK_THROWS_AS(KeyRegistry("test", {{"s.name", K::count, Q::bytes, opt, "1", "A count", &DramParams::mapping}}),
                  std::logic_error);
  CHECK_THROWS_AS(KeyRegistry("test", {{"s.size", K::quantity, Q::time, opt, "", "A time", &DramParams::read_queue}}),
                  std::logic_error);
  CHECK_THROWS_AS(KeyRegistry("test", {{"s.policy", K::choice, Q::bytes, opt, "", "Policy", "open|shut",
                                        &DramParams::page_policy}}),
                  std::logic_error);
  CHECK_NOTHROW(KeyRegistry("test", {{"s.policy", K::choice, Q::bytes, opt, "", "Policy", &DramParams::page_policy}}));
}

namespace {
struct Sample {
  std::string name;
  bool enabled = false;
  PagePolicy policy = PagePolicy::open;
  std::uint32_t queue = 0;
  std::uint64_t links = 7;
  Bytes size_bytes = 0;
  Hertz clock_hz = 0;
  Seconds latency_s = 0;
  Seconds launch_s = 0;
  double ratio = 0;
  std::string untouched = "kept";
};
}  // namespace

TEST_CASE("read_fields fills each kind of member from the file, else from the row's default") {
  const KeyRegistry registry("sample", {
                                           {"s", K::section, Q::bytes, req, "", "A section"},
                                           {"s.name", K::text, Q::bytes, req, "", "Name", &Sample::name},
                                           {"s.enabled", K::flag, Q::bytes, opt, "true", "Flag", &Sample::enabled},
                                           {"s.policy", K::choice, Q::bytes, opt, "closed", "Policy", &Sample::policy},
                                           {"s.queue", K::count, Q::bytes, opt, "64", "Count", &Sample::queue},
                                           {"s.links", K::integer, Q::bytes, opt, "", "Integer", &Sample::links},
                                           {"s.size", K::quantity, Q::bytes, opt, "4KiB", "Size", &Sample::size_bytes},
                                           {"s.clock", K::quantity, Q::frequency, req, "", "Clock", &Sample::clock_hz},
                                           {"s.latency", K::quantity, Q::time, req, "", "Latency",
                                            Field(&Sample::latency_s, &Sample::clock_hz)},
                                           {"s.launch", K::quantity, Q::time, opt, "4us", "Launch", &Sample::launch_s},
                                           {"s.ratio", K::real, Q::bytes, opt, "0.5", "Ratio", &Sample::ratio},
                                           {"s.untouched", K::text, Q::bytes, opt, "", "Not given", &Sample::untouched},
                                       });
  const ConfigDocument document(
      std::string_view("[s]\nname = \"x\"\npolicy = \"adaptive\"\nclock = \"2GHz\"\nlatency = \"10cycles\"\n"),
      "s.toml", registry);
  document.check();
  Sample sample;
  document.root().child("s")->read_fields(sample);
  CHECK(sample.name == "x");
  CHECK(sample.enabled);
  CHECK(sample.policy == PagePolicy::adaptive);
  CHECK(sample.queue == 64);
  CHECK(sample.links == 7);  // absent without a default: left as it was
  CHECK(sample.size_bytes == 4096);
  CHECK(sample.clock_hz == doctest::Approx(2e9));
  CHECK(sample.latency_s == doctest::Approx(5e-9));  // 10 cycles of the clock read by the row before
  CHECK(sample.launch_s == doctest::Approx(4e-6));
  CHECK(sample.ratio == doctest::Approx(0.5));
  CHECK(sample.untouched == "kept");

  DramParams other;
  document.root().child("s")->read_fields(other);  // no row binds a member of DramParams: nothing is read
  CHECK(other.read_queue == 0);
}

TEST_CASE("every spelling of every enum parses to its value and prints back") {
  check_round_trip<DramModel>();
  check_round_trip<PagePolicy>();
  check_round_trip<DramScheduler>();
  check_round_trip<RefreshMode>();
  check_round_trip<LevelScope>();
  check_round_trip<LevelKind>();
  check_round_trip<TopologyKind>();
  check_round_trip<ReduceCost>();
  check_round_trip<DataType>();
  CHECK(enum_choices<PagePolicy>() == "open|closed|adaptive");
  CHECK(enum_choices<TopologyKind>() == "ring|fully_connected|switch|torus|two_level");
  CHECK(enum_choices<DataType>() == "fp64|fp32|tf32|bf16|fp16|fp8|int8");
}

TEST_CASE("an unknown enum spelling in a file is reported with exactly the table's spellings") {
  const std::string device =
      "[device]\nname = \"d\"\n[compute]\nunits = 1\n[compute.engines.vector]\n"
      "clock = \"1GHz\"\n[compute.engines.vector.flops_per_cycle]\nfp32 = 1\n";
  const auto policy = error_of(device +
                                   "[dram]\nstandard = \"HBM3-6400\"\nstacks = 1\ncapacity = \"1GiB\"\n"
                                   "latency = \"100ns\"\npage_policy = \"opn\"\n",
                               hardware_registry());
  CHECK(policy.find("t.toml:14:") != std::string::npos);
  CHECK(policy.find("dram.page_policy") != std::string::npos);
  CHECK(policy.find("one of " + enum_choices<PagePolicy>()) != std::string::npos);

  const auto scope = error_of(device + "[memory.l1]\nscope = \"core\"\n", hardware_registry());
  CHECK(scope.find("one of " + enum_choices<LevelScope>()) != std::string::npos);

  const auto topology = error_of(
      "[cluster]\nname = \"c\"\ndevice = \"d\"\ndevices = 2\n[topology]\nkind = \"mesh\"\n[link]\nbandwidth = "
      "\"1GB/s\"\n",
      cluster_registry());
  CHECK(topology.find("topology.kind") != std::string::npos);
  CHECK(topology.find("one of " + enum_choices<TopologyKind>()) != std::string::npos);
}

TEST_CASE("a command-line option with an unknown spelling names the option and lists the spellings") {
  CHECK(parse_enum_option<RefreshMode>("--refresh", "per_bank") == RefreshMode::per_bank);
  try {
    (void)parse_enum_option<PagePolicy>("--page-policy", "opn");
    FAIL("an unknown spelling was accepted");
  } catch (const InputError& error) {
    const std::string message = error.what();
    CHECK(message.find("--page-policy") != std::string::npos);
    CHECK(message.find("opn") != std::string::npos);
    CHECK(message.find("open|closed|adaptive") != std::string::npos);
  }
}

TEST_CASE("the DRAM timing table: one row per constraint, fallbacks to required keys, one schema row each") {
  const auto& fields = dram_timing_fields<std::uint32_t>();
  std::set<std::string_view> keys;
  std::vector<std::uint32_t DramTiming::*> members;
  for (const auto& field : fields) {
    INFO("timing." << field.key);
    CHECK(keys.insert(field.key).second);
    CHECK(std::find(members.begin(), members.end(), field.member) == members.end());
    members.push_back(field.member);
    if (!field.fallback.empty()) {
      CHECK(keys.count(field.fallback) == 1);  // an earlier row
      for (const auto& other : fields) {
        if (other.key == field.fallback) CHECK(other.fallback.empty());
      }
    }
    const KeySpec* spec = dram_standard_registry().find({"timing", std::string(field.key)});
    REQUIRE(spec != nullptr);
    CHECK(spec->kind == ValueKind::quantity);
    CHECK(spec->quantity == QuantityKind::time);
    CHECK((spec->presence == Presence::required) == field.fallback.empty());
    CHECK(spec->description.find(field.description) == 0);
    const bool names_fallback =
        spec->description.find("(default " + std::string(field.fallback) + ")") != std::string_view::npos;
    CHECK(names_fallback == !field.fallback.empty());
  }
}

TEST_CASE("the DRAM controller defaults are the schema's defaults") {
  const auto dram = default_dram_params();
  const auto default_of = [](const std::string& key) {
    return std::string(hardware_registry().find({"dram", key})->default_value);
  };
  CHECK(to_string(dram.model) == default_of("model"));
  CHECK(dram.mapping == default_of("mapping"));
  CHECK(to_string(dram.page_policy) == default_of("page_policy"));
  CHECK(to_string(dram.scheduler) == default_of("scheduler"));
  CHECK(to_string(dram.refresh) == default_of("refresh"));
  CHECK(std::to_string(dram.read_queue) == default_of("read_queue"));
  CHECK(std::to_string(dram.write_queue) == default_of("write_queue"));
  CHECK(std::to_string(dram.write_high) == default_of("write_high"));
  CHECK(std::to_string(dram.write_low) == default_of("write_low"));
  CHECK(std::to_string(dram.frfcfs_cap) == default_of("frfcfs_cap"));
  CHECK(dram.stacks == 0);  // no default: left empty
}
