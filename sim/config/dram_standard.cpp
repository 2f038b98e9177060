// Schema and loader of a DRAM standard file (configs/dram/<NAME>.toml).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/config_document.h"
#include "sim/config/dram_params.h"
#include "sim/config/key_spec.h"

namespace roofsim {

namespace {
using namespace schema;

// A DRAM pin's data rate, 100 Mb/s .. 100 Gb/s, in B/s.
constexpr ValueRange kPinDataRate = within(100e6 / 8, 100e9 / 8);
// A refresh timing: the longest JEDEC lists (the refresh interval tREFI, a few microseconds) with room to spare.
constexpr ValueRange kRefreshTimingRange = within(0, 1e-3);
// Any other timing constraint: the longest JEDEC lists is a refresh cycle (tRFC, 550 ns for a 16 Gb DDR4 die) or an
// exit from self refresh just beyond it; 10 us leaves room for slow parts and keeps a request's commands from
// spanning thousands of refresh intervals, each of which the controller simulates.
constexpr ValueRange kTimingRange = within(0, 10e-6);

// The schema rows with the timing table's rows inserted after the [timing] row: one quantity per table entry, optional
// when it has a fallback, which its description then names. The loader's loop over the same table reads them (it
// converts ns to cycles of tCK, and falls back), so their field is by_hand.
std::vector<KeySpec> with_timing_rows(std::vector<KeySpec> specs) {
  static const auto texts = [] {
    std::vector<std::pair<std::string, std::string>> path_and_description;
    for (const auto& field : dram_timing_fields<std::uint32_t>()) {
      std::string description(field.description);
      if (!field.fallback.empty()) description += " (default " + std::string(field.fallback) + ")";
      path_and_description.emplace_back("timing." + std::string(field.key), std::move(description));
    }
    return path_and_description;
  }();
  std::vector<KeySpec> rows;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const bool required = dram_timing_fields<std::uint32_t>()[i].fallback.empty();
    rows.emplace_back(texts[i].first, K::quantity, Q::time, required ? req : opt, "", texts[i].second, by_hand,
                      texts[i].first.rfind("timing.tREF", 0) == 0 ? kRefreshTimingRange : kTimingRange);
  }
  const auto timing =
      std::find_if(specs.begin(), specs.end(), [](const KeySpec& spec) { return spec.path == "timing"; });
  specs.insert(timing + 1, rows.begin(), rows.end());
  return specs;
}

}  // namespace

const KeyRegistry& dram_standard_registry() {
  static const KeyRegistry registry(
      "DRAM standard",
      with_timing_rows({
          {"standard", K::section, Q::bytes, req, "", "The standard and speed grade"},
          {"standard.name", K::text, Q::bytes, req, "", "Name, as device files refer to it (\"HBM3-6400\")",
           &DramStandardParams::name},
          {"standard.family", K::choice, Q::bytes, req, "", "Family", "HBM2|HBM2e|HBM3|HBM3e|DDR4|DDR5|LPDDR5",
           &DramStandardParams::family},
          {"standard.source", K::text, Q::bytes, opt, "", "JEDEC document or public simulator config cited",
           &DramStandardParams::source},
          {"standard.data_rate", K::quantity, Q::bandwidth, req, "", "Data rate per pin (\"6.4Gb/s\")", by_hand,
           kPinDataRate},
          {"standard.tCK", K::quantity, Q::time, req, "", "Command clock period", by_hand, within(10e-12, 100e-9)},

          {"organization", K::section, Q::bytes, req, "", "Channels, banks and rows"},
          {"organization.channels", K::count, Q::bytes, req, "", "Channels per stack (per device for DDR/LPDDR)",
           &DramStandardParams::channels, within(1, 1024)},
          {"organization.pseudo_channels", K::count, Q::bytes, opt, "1", "Pseudo-channels per channel",
           &DramStandardParams::pseudo_channels, within(1, 16)},
          {"organization.bus_width", K::count, Q::bytes, req, "",
           "Data bus width of one pseudo-channel (channel where there are none), bits",
           &DramStandardParams::bus_width_bits, within(1, 4096)},
          {"organization.bank_groups", K::count, Q::bytes, req, "", "Bank groups per pseudo-channel",
           &DramStandardParams::bank_groups, within(1, 64)},
          {"organization.banks_per_group", K::count, Q::bytes, req, "", "Banks per bank group",
           &DramStandardParams::banks_per_group, within(1, 64)},
          {"organization.row_size", K::quantity, Q::bytes, req, "", "Row (page) size per pseudo-channel",
           &DramStandardParams::row_bytes, within(1, 1 << 20)},
          {"organization.burst_length", K::count, Q::bytes, req, "", "Burst length, beats", &DramTiming::burst_length,
           within(1, 256)},
          {"organization.per_bank_refresh", K::flag, Q::bytes, opt, "false", "The standard has per-bank refresh",
           &DramStandardParams::per_bank_refresh},
          {"organization.refresh_postpone_max", K::integer, Q::bytes, opt, "0",
           "All-bank refreshes a controller may postpone under load (per-bank: as many rounds); 0: none",
           &DramStandardParams::refresh_postpone_max, within(0, 64)},
          {"organization.separate_row_bus", K::flag, Q::bytes, opt, "false",
           "Row commands (ACT, PRE, REF) and column commands (RD, WR) have separate buses (HBM)",
           &DramStandardParams::separate_row_bus},
          {"organization.shared_command_bus", K::flag, Q::bytes, opt, "false",
           "The pseudo-channels of a channel share its command buses (HBM pseudo-channel mode)",
           &DramStandardParams::shared_command_bus},

          {"timing", K::section, Q::bytes, req, "", "Timing constraints (ns, or cycles of tCK)"},
          {"timing.act_cycles", K::count, Q::bytes, opt, "1", "Command-bus cycles an ACT occupies",
           &DramTiming::act_cycles, within(1, 64)},
          {"timing.pre_cycles", K::count, Q::bytes, opt, "1", "Command-bus cycles a PRE occupies",
           &DramTiming::pre_cycles, within(1, 64)},
          {"timing.cas_cycles", K::count, Q::bytes, opt, "1", "Command-bus cycles a RD or WR occupies",
           &DramTiming::cas_cycles, within(1, 64)},

          {"energy", K::section, Q::bytes, opt, "", "Energy per command (per pseudo-channel)"},
          {"energy.act", K::quantity, Q::energy, opt, "0pJ", "Energy of one ACT (with its PRE share excluded)",
           &DramEnergy::act_j},
          {"energy.pre", K::quantity, Q::energy, opt, "0pJ", "Energy of one PRE", &DramEnergy::pre_j},
          {"energy.rd", K::quantity, Q::energy, opt, "0pJ", "Energy of one read burst", &DramEnergy::rd_j},
          {"energy.wr", K::quantity, Q::energy, opt, "0pJ", "Energy of one write burst", &DramEnergy::wr_j},
          {"energy.ref", K::quantity, Q::energy, opt, "0pJ", "Energy of one all-bank refresh", &DramEnergy::ref_j},
          {"energy.background", K::quantity, Q::power, opt, "0W", "Background power per pseudo-channel",
           &DramEnergy::background_w, within(0, 100)},
      }));
  return registry;
}

DramStandardParams load_dram_standard(const std::filesystem::path& file, double data_rate_bits_per_s) {
  ConfigDocument document(file, dram_standard_registry());
  document.check();
  const auto root = document.root();
  const auto standard = *root.child("standard");
  const auto organization = *root.child("organization");
  const auto timing = *root.child("timing");

  DramStandardParams params;
  params.file = file.string();
  standard.read_fields(params);
  const double nominal_rate = standard.quantity("data_rate", QuantityKind::bandwidth) * 8.0;
  const Seconds nominal_tck = standard.time("tCK", 0);
  if (nominal_rate <= 0) standard.fail("data_rate", "a data rate above 0");
  if (nominal_tck <= 0) standard.fail("tCK", "a clock period above 0 s");
  params.data_rate_bits_per_s = data_rate_bits_per_s > 0 ? data_rate_bits_per_s : nominal_rate;
  params.tck_s = nominal_tck * nominal_rate / params.data_rate_bits_per_s;

  organization.read_fields(params);
  organization.read_fields(params.timing);
  // The controller keeps the banks of a channel as the bits of one 64-bit word (models/dram/bank_queues.h); JEDEC's
  // largest channel (DDR5: 8 groups x 4 banks) has 32.
  if (params.banks() > 64) {
    organization.fail("banks_per_group", "at most 64 banks per channel (bank_groups x banks_per_group; " +
                                             std::to_string(params.bank_groups) + " bank groups)");
  }
  if (params.burst_bytes() == 0 || params.row_bytes % params.burst_bytes() != 0) {
    organization.fail("row_size", "a whole number of bursts (burst = bus_width x burst_length / 8 = " +
                                      std::to_string(params.burst_bytes()) + " B)");
  }

  // ns keep their duration at another data rate (so grow in cycles); cycles stay cycles.
  // A timing in cycles is checked against its range as a duration, at this standard's tCK.
  const auto cycles_of = [&](const std::string& key) -> std::uint32_t {
    const auto text = *timing.optional_text(key);
    const auto parsed = parse_quantity(text, QuantityKind::time);
    if (!parsed) timing.fail(key, expected_text(QuantityKind::time));
    if (parsed->in_cycles) {
      if (const auto problem = timing.range_problem(key, parsed->value * params.tck_s)) timing.fail(key, *problem);
    }
    const double cycles =
        parsed->in_cycles ? std::round(parsed->value) : std::ceil(parsed->value / params.tck_s - 1e-6);
    if (cycles > std::numeric_limits<std::uint32_t>::max()) {
      timing.fail(key, "at most 2^32 - 1 cycles of tCK (" + format_si(params.tck_s, "s") + ")");
    }
    return static_cast<std::uint32_t>(cycles);
  };
  for (const auto& field : dram_timing_fields<std::uint32_t>()) {
    params.timing.*field.member = cycles_of(std::string(timing.has(field.key) ? field.key : field.fallback));
  }
  timing.read_fields(params.timing);
  // Re-timed to another pin rate, tRAS and tRP are each rounded up to whole cycles and their sum can exceed the
  // rounded tRC by up to two cycles although the durations satisfy tRC >= tRAS + tRP; a bank then waits the sum.
  const bool retimed = std::abs(params.data_rate_bits_per_s - nominal_rate) > 1e-9 * nominal_rate;
  const std::uint32_t row_cycle_floor = params.timing.tRAS + params.timing.tRP;
  if (retimed && params.timing.tRC < row_cycle_floor && params.timing.tRC + 2 >= row_cycle_floor) {
    params.timing.tRC = row_cycle_floor;
  }
  if (params.timing.tRC < row_cycle_floor) {
    timing.fail("tRC", "at least tRAS + tRP (" + std::to_string(row_cycle_floor) + " cycles)");
  }

  if (const auto energy = root.child("energy")) energy->read_fields(params.energy);
  return params;
}

}  // namespace roofsim
