#pragma once
// The timing constraints of a DRAM standard and the one list of them: the configuration schema's [timing] rows, the
// loader of a standard file and the timing checker's own copy are all made from dram_timing_fields(), so a constraint
// added here reaches every one of them.
#include <cstdint>
#include <iterator>
#include <string_view>

namespace roofsim {

// All in cycles of tCK, as the controller (and JEDEC) counts them. Where a standard has no distinction (one tRCD, one
// tCCD), both fields hold the same value. `Count` is the integer the holder computes with: the standard's parameters
// keep 32 bits, the timing checker 64-bit signed cycles, so that its sums and differences of cycles never wrap.
template <class Count>
struct DramTimingOf {
  Count burst_length = 0;  // BL, in beats (data transfers); a burst occupies BL / 2 cycles on a DDR bus
  Count tRCD = 0, tRCDWR = 0, tRP = 0, tRAS = 0, tRC = 0;
  Count tCL = 0, tWL = 0;
  Count tCCD_S = 0, tCCD_L = 0, tRRD_S = 0, tRRD_L = 0, tFAW = 0;
  Count tWR = 0, tWTR_S = 0, tWTR_L = 0, tRTP = 0, tRTW = 0;
  Count tRFC = 0, tRFCsb = 0, tREFI = 0, tREFIsb = 0;
  Count act_cycles = 1, pre_cycles = 1;  // command-bus occupancy of ACT and PRE
  Count cas_cycles = 1;                  // command-bus occupancy of RD and WR (DDR5: 2)
};

using DramTiming = DramTimingOf<std::uint32_t>;

// One timing constraint of a standard file's [timing] section: given in ns (or cycles of tCK), held in cycles.
template <class Count>
struct DramTimingField {
  std::string_view key;  // "tRCD"
  Count DramTimingOf<Count>::*member;
  std::string_view fallback;     // key whose value applies when this one is absent; empty: the key is required
  std::string_view description;  // one line, without the fallback (the schema appends "(default <fallback>)")
};

// The timing set of DESIGN.md section 4, in the order `roofsim list --keys` shows it. The table is a template of the
// holder's integer type so that the checker's 64-bit copy walks the same rows as the standard's parameters.
template <class Count>
struct DramTimingFields {
  using T = DramTimingOf<Count>;
  static constexpr DramTimingField<Count> kAll[] = {
      {"tRCD", &T::tRCD, "", "ACT to RD"},
      {"tRCDWR", &T::tRCDWR, "tRCD", "ACT to WR"},
      {"tRP", &T::tRP, "", "PRE to ACT, same bank"},
      {"tRAS", &T::tRAS, "", "ACT to PRE, same bank"},
      {"tRC", &T::tRC, "", "ACT to ACT, same bank"},
      {"tCL", &T::tCL, "", "RD to first data (CAS / read latency)"},
      {"tWL", &T::tWL, "", "WR to first data (write latency)"},
      {"tCCD_S", &T::tCCD_S, "", "RD to RD (WR to WR), different bank group"},
      {"tCCD_L", &T::tCCD_L, "tCCD_S", "RD to RD (WR to WR), same bank group"},
      {"tRRD_S", &T::tRRD_S, "", "ACT to ACT, different bank group"},
      {"tRRD_L", &T::tRRD_L, "tRRD_S", "ACT to ACT, same bank group"},
      {"tFAW", &T::tFAW, "", "Window in which at most four ACTs may issue"},
      {"tWR", &T::tWR, "", "End of write data to PRE (write recovery)"},
      {"tWTR_S", &T::tWTR_S, "", "End of write data to RD, different bank group"},
      {"tWTR_L", &T::tWTR_L, "tWTR_S", "End of write data to RD, same bank group"},
      {"tRTP", &T::tRTP, "", "RD to PRE"},
      {"tRTW", &T::tRTW, "", "RD to WR (bus turnaround)"},
      {"tRFC", &T::tRFC, "", "All-bank refresh cycle time"},
      {"tRFCsb", &T::tRFCsb, "tRFC", "Per-bank refresh cycle time"},
      {"tREFI", &T::tREFI, "", "Average all-bank refresh interval"},
      {"tREFIsb", &T::tREFIsb, "tREFI", "Average per-bank refresh interval"},
  };
  // Every member but the burst length and the three command-bus occupancies (counts, not timings) has a row.
  static_assert(sizeof(T) == (std::size(kAll) + 4) * sizeof(Count), "a timing constraint of DramTimingOf has no row");
};

template <class Count>
[[nodiscard]] constexpr const auto& dram_timing_fields() {
  return DramTimingFields<Count>::kAll;
}

}  // namespace roofsim
