// Schema and loader of a DRAM standard file (configs/dram/<NAME>.toml).
#include <cmath>

#include "sim/config/config_document.h"
#include "sim/config/dram_params.h"
#include "sim/config/key_spec.h"

namespace roofsim {

namespace {
using namespace schema;

struct TimingField {
  const char* key;
  std::uint32_t DramTiming::*field;
  const char* fallback;  // key whose value is used when this one is absent ("" = required)
};

// The timing set of DESIGN.md section 4. Where a standard makes no distinction, the fallback key supplies it.
constexpr TimingField kTimingFields[] = {
    {"tRCD", &DramTiming::tRCD, ""},
    {"tRCDWR", &DramTiming::tRCDWR, "tRCD"},
    {"tRP", &DramTiming::tRP, ""},
    {"tRAS", &DramTiming::tRAS, ""},
    {"tRC", &DramTiming::tRC, ""},
    {"tCL", &DramTiming::tCL, ""},
    {"tWL", &DramTiming::tWL, ""},
    {"tCCD_S", &DramTiming::tCCD_S, ""},
    {"tCCD_L", &DramTiming::tCCD_L, "tCCD_S"},
    {"tRRD_S", &DramTiming::tRRD_S, ""},
    {"tRRD_L", &DramTiming::tRRD_L, "tRRD_S"},
    {"tFAW", &DramTiming::tFAW, ""},
    {"tWR", &DramTiming::tWR, ""},
    {"tWTR_S", &DramTiming::tWTR_S, ""},
    {"tWTR_L", &DramTiming::tWTR_L, "tWTR_S"},
    {"tRTP", &DramTiming::tRTP, ""},
    {"tRTW", &DramTiming::tRTW, ""},
    {"tRFC", &DramTiming::tRFC, ""},
    {"tRFCsb", &DramTiming::tRFCsb, "tRFC"},
    {"tREFI", &DramTiming::tREFI, ""},
    {"tREFIsb", &DramTiming::tREFIsb, "tREFI"},
};
}  // namespace

const KeyRegistry& dram_standard_registry() {
  static const KeyRegistry registry(
      "DRAM standard",
      {
          {"standard", K::section, Q::bytes, req, "", "The standard and speed grade"},
          {"standard.name", K::text, Q::bytes, req, "", "Name, as device files refer to it (\"HBM3-6400\")"},
          {"standard.family", K::choice, Q::bytes, req, "", "Family", "HBM2|HBM2e|HBM3|HBM3e|DDR4|DDR5|LPDDR5"},
          {"standard.source", K::text, Q::bytes, opt, "", "JEDEC document or public simulator config cited"},
          {"standard.data_rate", K::quantity, Q::bandwidth, req, "", "Data rate per pin (\"6.4Gb/s\")"},
          {"standard.tCK", K::quantity, Q::time, req, "", "Command clock period"},

          {"organization", K::section, Q::bytes, req, "", "Channels, banks and rows"},
          {"organization.channels", K::count, Q::bytes, req, "", "Channels per stack (per device for DDR/LPDDR)"},
          {"organization.pseudo_channels", K::count, Q::bytes, opt, "1", "Pseudo-channels per channel"},
          {"organization.bus_width", K::count, Q::bytes, req, "",
           "Data bus width of one pseudo-channel (channel where there are none), bits"},
          {"organization.bank_groups", K::count, Q::bytes, req, "", "Bank groups per pseudo-channel"},
          {"organization.banks_per_group", K::count, Q::bytes, req, "", "Banks per bank group"},
          {"organization.row_size", K::quantity, Q::bytes, req, "", "Row (page) size per pseudo-channel"},
          {"organization.burst_length", K::count, Q::bytes, req, "", "Burst length, beats"},
          {"organization.per_bank_refresh", K::flag, Q::bytes, opt, "false", "The standard has per-bank refresh"},
          {"organization.separate_row_bus", K::flag, Q::bytes, opt, "false",
           "Row commands (ACT, PRE, REF) and column commands (RD, WR) have separate buses (HBM)"},

          {"timing", K::section, Q::bytes, req, "", "Timing constraints (ns, or cycles of tCK)"},
          {"timing.tRCD", K::quantity, Q::time, req, "", "ACT to RD"},
          {"timing.tRCDWR", K::quantity, Q::time, opt, "", "ACT to WR (default tRCD)"},
          {"timing.tRP", K::quantity, Q::time, req, "", "PRE to ACT, same bank"},
          {"timing.tRAS", K::quantity, Q::time, req, "", "ACT to PRE, same bank"},
          {"timing.tRC", K::quantity, Q::time, req, "", "ACT to ACT, same bank"},
          {"timing.tCL", K::quantity, Q::time, req, "", "RD to first data (CAS / read latency)"},
          {"timing.tWL", K::quantity, Q::time, req, "", "WR to first data (write latency)"},
          {"timing.tCCD_S", K::quantity, Q::time, req, "", "RD to RD (WR to WR), different bank group"},
          {"timing.tCCD_L", K::quantity, Q::time, opt, "", "RD to RD (WR to WR), same bank group (default tCCD_S)"},
          {"timing.tRRD_S", K::quantity, Q::time, req, "", "ACT to ACT, different bank group"},
          {"timing.tRRD_L", K::quantity, Q::time, opt, "", "ACT to ACT, same bank group (default tRRD_S)"},
          {"timing.tFAW", K::quantity, Q::time, req, "", "Window in which at most four ACTs may issue"},
          {"timing.tWR", K::quantity, Q::time, req, "", "End of write data to PRE (write recovery)"},
          {"timing.tWTR_S", K::quantity, Q::time, req, "", "End of write data to RD, different bank group"},
          {"timing.tWTR_L", K::quantity, Q::time, opt, "", "End of write data to RD, same bank group (default tWTR_S)"},
          {"timing.tRTP", K::quantity, Q::time, req, "", "RD to PRE"},
          {"timing.tRTW", K::quantity, Q::time, req, "", "RD to WR (bus turnaround)"},
          {"timing.tRFC", K::quantity, Q::time, req, "", "All-bank refresh cycle time"},
          {"timing.tRFCsb", K::quantity, Q::time, opt, "", "Per-bank refresh cycle time (default tRFC)"},
          {"timing.tREFI", K::quantity, Q::time, req, "", "Average all-bank refresh interval"},
          {"timing.tREFIsb", K::quantity, Q::time, opt, "", "Average per-bank refresh interval (default tREFI)"},
          {"timing.act_cycles", K::count, Q::bytes, opt, "1", "Command-bus cycles an ACT occupies"},
          {"timing.pre_cycles", K::count, Q::bytes, opt, "1", "Command-bus cycles a PRE occupies"},
          {"timing.cas_cycles", K::count, Q::bytes, opt, "1", "Command-bus cycles a RD or WR occupies"},

          {"energy", K::section, Q::bytes, opt, "", "Energy per command (per pseudo-channel)"},
          {"energy.act", K::quantity, Q::energy, opt, "0pJ", "Energy of one ACT (with its PRE share excluded)"},
          {"energy.pre", K::quantity, Q::energy, opt, "0pJ", "Energy of one PRE"},
          {"energy.rd", K::quantity, Q::energy, opt, "0pJ", "Energy of one read burst"},
          {"energy.wr", K::quantity, Q::energy, opt, "0pJ", "Energy of one write burst"},
          {"energy.ref", K::quantity, Q::energy, opt, "0pJ", "Energy of one all-bank refresh"},
          {"energy.background", K::quantity, Q::power, opt, "0W", "Background power per pseudo-channel"},
      });
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
  params.name = standard.text("name");
  params.family = standard.text("family");
  params.source = standard.optional_text("source").value_or("");
  const double nominal_rate = standard.quantity("data_rate", QuantityKind::bandwidth) * 8.0;
  const Seconds nominal_tck = standard.time("tCK", 0);
  if (nominal_rate <= 0) standard.fail("data_rate", "a data rate above 0");
  if (nominal_tck <= 0) standard.fail("tCK", "a clock period above 0 s");
  params.data_rate_bits_per_s = data_rate_bits_per_s > 0 ? data_rate_bits_per_s : nominal_rate;
  params.tck_s = nominal_tck * nominal_rate / params.data_rate_bits_per_s;

  params.channels = static_cast<std::uint32_t>(organization.count("channels"));
  params.pseudo_channels = static_cast<std::uint32_t>(organization.count("pseudo_channels"));
  params.bus_width_bits = static_cast<std::uint32_t>(organization.count("bus_width"));
  params.bank_groups = static_cast<std::uint32_t>(organization.count("bank_groups"));
  params.banks_per_group = static_cast<std::uint32_t>(organization.count("banks_per_group"));
  params.row_bytes = organization.bytes("row_size");
  params.per_bank_refresh = organization.flag("per_bank_refresh");
  params.separate_row_bus = organization.flag("separate_row_bus");
  params.timing.burst_length = static_cast<std::uint32_t>(organization.count("burst_length"));
  if (params.burst_bytes() == 0 || params.row_bytes % params.burst_bytes() != 0) {
    organization.fail("row_size", "a whole number of bursts (burst = bus_width x burst_length / 8 = " +
                                      std::to_string(params.burst_bytes()) + " B)");
  }

  // ns keep their duration at another data rate (so grow in cycles); cycles stay cycles.
  const auto cycles_of = [&](const std::string& key) -> std::uint32_t {
    const auto text = *timing.optional_text(key);
    const auto parsed = parse_quantity(text, QuantityKind::time);
    if (!parsed) timing.fail(key, expected_text(QuantityKind::time));
    if (parsed->in_cycles) return static_cast<std::uint32_t>(std::llround(parsed->value));
    return static_cast<std::uint32_t>(std::ceil(parsed->value / params.tck_s - 1e-6));
  };
  for (const auto& field : kTimingFields) {
    const std::string key = timing.has(field.key) ? field.key : field.fallback;
    params.timing.*field.field = cycles_of(key);
  }
  params.timing.act_cycles = static_cast<std::uint32_t>(timing.count("act_cycles"));
  params.timing.pre_cycles = static_cast<std::uint32_t>(timing.count("pre_cycles"));
  params.timing.cas_cycles = static_cast<std::uint32_t>(timing.count("cas_cycles"));
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

  if (const auto energy = root.child("energy")) {
    params.energy.act_j = energy->quantity("act", QuantityKind::energy);
    params.energy.pre_j = energy->quantity("pre", QuantityKind::energy);
    params.energy.rd_j = energy->quantity("rd", QuantityKind::energy);
    params.energy.wr_j = energy->quantity("wr", QuantityKind::energy);
    params.energy.ref_j = energy->quantity("ref", QuantityKind::energy);
    params.energy.background_w = energy->quantity("background", QuantityKind::power);
  }
  return params;
}

}  // namespace roofsim
