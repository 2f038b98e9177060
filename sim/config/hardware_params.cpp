#include "sim/config/hardware_params.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "sim/config/config_document.h"
#include "sim/config/data_paths.h"
#include "sim/config/design_reader.h"
#include "sim/config/key_spec.h"
#include "sim/config/work_limits.h"

namespace roofsim {

const MemoryLevelParams* HardwareParams::level(std::string_view level_name) const {
  for (const auto& candidate : levels) {
    if (candidate.name == level_name) return &candidate;
  }
  return nullptr;
}

const MemoryLevelParams* HardwareParams::local_level() const {
  for (const auto& candidate : levels) {
    if (candidate.scope == LevelScope::unit) return &candidate;
  }
  return nullptr;
}

namespace {

EngineParams read_engine(const ConfigSection& section) {
  EngineParams engine;
  engine.name = section.name();
  section.read_fields(engine);
  if (engine.clock_hz <= 0) section.fail("clock", "a clock above 0 Hz");
  if (const auto flops = section.child("flops_per_cycle")) {
    for (const auto& key : flops->keys()) {
      engine.flops_per_cycle[*parse_data_type(key)] = static_cast<double>(flops->count(key));
    }
  }
  if (const auto ops = section.child("ops_per_cycle")) {
    for (const auto& key : ops->keys()) {
      for (const auto op_class : kAllEngineOpClasses) {
        if (to_string(op_class) == key) engine.ops_per_cycle[op_class] = ops->real(key);
      }
    }
    // An FMA is two FLOPs: where both tables rate a type, they must agree, so the peaks a file quotes stay the ones
    // the vector work runs at.
    for (const auto type : {DataType::fp32, DataType::fp16, DataType::bf16}) {
      const auto fma = engine.ops_per_cycle.find(type == DataType::fp32   ? EngineOpClass::fp32_fma
                                                 : type == DataType::fp16 ? EngineOpClass::fp16_fma
                                                                          : EngineOpClass::bf16_fma);
      const auto flops = engine.flops_per_cycle.find(type);
      if (fma == engine.ops_per_cycle.end() || flops == engine.flops_per_cycle.end()) continue;
      if (std::abs(flops->second - 2 * fma->second) > 1e-9 * flops->second) {
        ops->fail(std::string(to_string(fma->first)),
                  fmt::format("half of {} = {} (an FMA is two FLOPs)",
                              section.key_path("flops_per_cycle." + std::string(to_string(type))), flops->second));
      }
    }
  }
  if (engine.flops_per_cycle.empty() && engine.ops_per_cycle.empty()) {
    section.fail("flops_per_cycle", "at least one data type (fp32 = 256, ...) or an ops_per_cycle table");
  }
  if (const auto energies = section.child("energy_per_flop")) {
    for (const auto& key : energies->keys()) {
      const auto type = *parse_data_type(key);
      if (engine.flops_per_cycle.count(type) == 0) {
        energies->fail(key, "a data type that the engine's flops_per_cycle lists");
      }
      engine.energy_per_flop_j[type] = energies->quantity(key, QuantityKind::energy);
    }
  }
  if (const auto energies = section.child("energy_per_op")) {
    for (const auto& key : energies->keys()) {
      for (const auto op_class : kAllEngineOpClasses) {
        if (to_string(op_class) == key)
          engine.energy_per_op_j[op_class] = energies->quantity(key, QuantityKind::energy);
      }
    }
  }
  return engine;
}

// Tags a cache level may track (about 0.5 GiB of them), far above any bundled device (H100's L2: 12,800).
constexpr std::uint64_t kMaxTrackedBlocks = std::uint64_t{1} << 24;

MemoryLevelParams read_level(const ConfigSection& section, std::uint64_t units) {
  MemoryLevelParams level;
  level.name = section.name();
  section.read_fields(level);
  if (level.capacity_bytes == 0) section.fail("capacity", "a capacity greater than 0 B");
  if (level.line_bytes == 0) section.fail("line_size", "a line size greater than 0 B");
  if (level.capacity_bytes % level.line_bytes != 0) {
    section.fail("line_size", "a line size that divides " + section.key_path("capacity") + " (" +
                                  std::to_string(level.capacity_bytes) + " B = " + format_bytes(level.capacity_bytes) +
                                  ")");
  }
  if (level.kind == LevelKind::cache && (level.capacity_bytes / level.line_bytes) % level.associativity != 0) {
    section.fail("associativity", "a way count that divides the number of lines (" +
                                      std::to_string(level.capacity_bytes / level.line_bytes) + ")");
  }
  if (level.bytes_per_cycle <= 0) section.fail("bytes_per_cycle", "a number greater than 0");
  if (level.clock_hz <= 0) section.fail("clock", "a clock above 0 Hz");
  // Read by hand: a latency in cycles needs the clock, checked first.
  level.latency_s = section.time("latency", level.clock_hz);
  if (level.tracking_bytes < level.line_bytes || level.tracking_bytes % level.line_bytes != 0) {
    section.fail("tracking_granularity", "a multiple of the line size (" + format_bytes(level.line_bytes) + ")");
  }
  // A cache keeps a tag (some 32 bytes) per tracked block, in every unit for a unit-scope level: a terabyte tracked in
  // kilobytes would take gigabytes before the first op runs.
  const std::uint64_t tracked_blocks =
      saturating_mul(level.capacity_bytes / level.tracking_bytes, level.scope == LevelScope::unit ? units : 1);
  if (level.kind == LevelKind::cache && tracked_blocks > kMaxTrackedBlocks) {
    section.fail(
        "capacity",
        "a capacity of at most " + std::to_string(kMaxTrackedBlocks) + " tracked blocks (" +
            format_bytes(level.capacity_bytes) + " in blocks of tracking_granularity " +
            format_bytes(level.tracking_bytes) +
            (level.scope == LevelScope::unit ? " in each of " + std::to_string(units) + " units" : std::string()) +
            " gives " + std::to_string(tracked_blocks) + "): a smaller capacity or a coarser tracking_granularity");
  }
  level.bandwidth_bytes_per_s =
      level.bytes_per_cycle * level.clock_hz * (level.scope == LevelScope::unit ? static_cast<double>(units) : 1.0);
  return level;
}

std::filesystem::path find_dram_standard(const std::filesystem::path& hardware_file, const std::string& name) {
  const auto dir = hardware_file.parent_path();
  for (const auto& candidate : {dir / "dram" / (name + ".toml"), dir.parent_path() / "dram" / (name + ".toml")}) {
    if (path_exists(candidate)) return candidate;
  }
  return resolve_data_file(name, "configs/dram");
}

DramParams read_dram(const ConfigSection& section, const std::filesystem::path& hardware_file) {
  DramParams dram;
  const auto standard_name = section.text("standard");
  const auto standard_file = find_dram_standard(hardware_file, standard_name);
  if (!path_exists(standard_file)) {
    // Name the standards that do exist, so that a typo or a missing speed grade is obvious.
    std::set<std::string> names;
    for (const auto& dir : {hardware_file.parent_path() / "dram", hardware_file.parent_path().parent_path() / "dram"}) {
      std::error_code error;
      for (std::filesystem::directory_iterator entry(dir, error), end; !error && entry != end; entry.increment(error)) {
        if (entry->path().extension() == ".toml") names.insert(entry->path().stem().string());
      }
    }
    for (const auto& bundled : bundled_files("configs/dram")) names.insert(bundled.stem().string());
    std::string available;
    for (const auto& name : names) available += (available.empty() ? "" : ", ") + name;
    section.fail("standard", "the name of a DRAM standard file in configs/dram/ (none called '" + standard_name +
                                 ".toml' was found; available: " + (available.empty() ? "none" : available) + ")");
  }
  const double data_rate = section.optional_quantity("data_rate", QuantityKind::bandwidth).value_or(0.0) * 8.0;
  dram.standard = load_dram_standard(standard_file, data_rate);
  section.read_fields(dram);
  if (dram.capacity_bytes == 0) section.fail("capacity", "a capacity greater than 0 B");
  dram.refresh = dram.resolved_refresh();
  if (dram.refresh == RefreshMode::per_bank && !dram.standard.per_bank_refresh) {
    section.fail("refresh", "all_bank or none (" + dram.standard.name + " has no per-bank refresh)");
  }
  // The same check the controller's address mapping makes when it is built, here, so that validate, --set and run
  // reject a bad order alike and name the key.
  if (const auto problem = mapping_order_problem(dram.mapping)) section.fail("mapping", *problem);
  if (dram.write_high > dram.write_queue) section.fail("write_high", "at most write_queue entries");
  if (dram.write_low >= dram.write_high) section.fail("write_low", "fewer entries than write_high");
  return dram;
}

PowerParams read_power(const std::optional<ConfigSection>& section, Hertz nominal_clock_hz) {
  PowerParams power;
  power.nominal_clock_hz = nominal_clock_hz;
  power.nominal_voltage_v = 1.0;
  if (section) {
    section->read_fields(power);
    power.cap_w = section->optional_quantity("cap", QuantityKind::power).value_or(power.tdp_w);
    if (power.up_hold_s < 0) section->fail("up_hold", "a time of at least 0 s");
    if (power.window_s <= 0) section->fail("window", "a window longer than 0 s");
    for (const auto& state : section->elements("dvfs")) {
      DvfsState parsed;
      state.read_fields(parsed);
      // Engine figures are given at the nominal (fastest) clock; a state above it would invent performance.
      if (parsed.clock_hz <= 0 || parsed.clock_hz > nominal_clock_hz * (1 + 1e-9)) {
        state.fail("clock",
                   "a clock above 0 and at most the fastest engine clock (" + format_si(nominal_clock_hz, "Hz") + ")");
      }
      if (parsed.voltage_v <= 0) state.fail("voltage", "a voltage above 0 V");
      power.dvfs.push_back(parsed);
    }
  }
  std::sort(power.dvfs.begin(), power.dvfs.end(),
            [](const DvfsState& a, const DvfsState& b) { return a.clock_hz < b.clock_hz; });
  if (power.dvfs.empty() || power.dvfs.back().clock_hz < nominal_clock_hz * (1 - 1e-9)) {
    power.dvfs.push_back({nominal_clock_hz, power.nominal_voltage_v});
  }
  return power;
}

}  // namespace

HardwareParams load_hardware(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  ConfigDocument document(file, hardware_registry());
  for (const auto& entry : overrides) document.apply_override(entry.key, entry.value);
  document.check();
  const auto root = document.root();

  HardwareParams hw;
  hw.file = file.string();
  root.child("device")->read_fields(hw);

  const auto compute = *root.child("compute");
  compute.read_fields(hw.compute);
  if (hw.compute.request_bytes == 0) compute.fail("request_bytes", "a request size greater than 0 B");
  if (const auto tile = compute.child("default_tile")) tile->read_fields(hw.compute.default_tile.emplace());
  for (const auto& engine : compute.child("engines")->children()) hw.compute.engines.push_back(read_engine(engine));
  if (hw.compute.engines.empty()) compute.fail("engines", "at least one engine ([compute.engines.matrix], ...)");
  if (hw.compute.engines.size() > kMaxUnitEngines) {
    compute.fail("engines", fmt::format("at most {} engines per unit", kMaxUnitEngines));
  }

  if (const auto memory = root.child("memory")) {
    for (const auto& level : memory->children()) hw.levels.push_back(read_level(level, hw.compute.units));
    // A unit's requests pass its own levels before shared ones, whatever order the file lists them in.
    std::stable_sort(hw.levels.begin(), hw.levels.end(), [](const auto& a, const auto& b) {
      return a.scope == LevelScope::unit && b.scope == LevelScope::device;
    });
  }
  if (const auto dram = root.child("dram")) hw.dram = read_dram(*dram, file);
  if (hw.levels.empty() && !hw.dram) root.fail_message("a device needs at least one [memory.<level>] or a [dram]");

  Hertz nominal_clock = 0;
  for (const auto& engine : hw.compute.engines) nominal_clock = std::max(nominal_clock, engine.clock_hz);
  hw.power = read_power(root.child("power"), nominal_clock);

  if (const auto link = root.child("interconnect")) link->read_fields(hw.interconnect);
  read_design(root, hw);
  return hw;
}

DramParams default_dram_params() {
  const ConfigDocument document(std::string_view(), "(defaults)", hardware_registry());
  DramParams dram;
  document.root().child_or_defaults("dram").read_fields(dram);
  return dram;
}

}  // namespace roofsim
