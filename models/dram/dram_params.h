#pragma once
// The parameters of a device's DRAM as the configuration describes them (sim/config produces them from a DRAM standard
// file, one per standard and speed in configs/dram/, and the device file's [dram] section): the standard's geometry,
// timings and command energies, and the controller's policies. Timings are kept in cycles of tCK, as the controller
// (and JEDEC) counts them.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "models/dram/dram_timing.h"
#include "sim/core/units.h"

namespace roofsim {

struct DramEnergy {
  Joules act_j = 0, pre_j = 0, rd_j = 0, wr_j = 0, ref_j = 0;  // per command (RD/WR: per burst)
  Watts background_w = 0;                                      // per channel (pseudo-channel for HBM)
};

struct DramStandardParams {
  std::string name;    // "HBM3-5200"
  std::string family;  // HBM2, HBM2e, HBM3, HBM3e, DDR4, DDR5, LPDDR5
  std::string source;  // citation
  std::string file;
  double data_rate_bits_per_s = 0;  // per pin
  Seconds tck_s = 0;
  std::uint32_t channels = 0;         // per stack / device
  std::uint32_t pseudo_channels = 1;  // per channel (HBM2 and later: 2)
  std::uint32_t bus_width_bits = 0;   // per pseudo-channel (per channel where there are none)
  std::uint32_t bank_groups = 0;      // per pseudo-channel
  std::uint32_t banks_per_group = 0;
  Bytes row_bytes = 0;            // page size per pseudo-channel
  bool per_bank_refresh = false;  // the standard has REFsb/REFpb
  // All-bank refreshes the controller may postpone while it has requests queued (per-bank: as many rounds of REFsb).
  std::uint32_t refresh_postpone_max = 0;
  bool separate_row_bus = false;  // row (ACT/PRE/REF) and column (RD/WR) commands have their own buses (HBM)
  // The pseudo-channels of a channel take turns on its row and column command buses (HBM pseudo-channel mode).
  bool shared_command_bus = false;
  DramTiming timing;
  DramEnergy energy;

  [[nodiscard]] std::uint32_t banks() const { return bank_groups * banks_per_group; }
  [[nodiscard]] Bytes burst_bytes() const { return static_cast<Bytes>(bus_width_bits) * timing.burst_length / 8; }
  // Cycles of tCK one burst occupies the data bus: BL beats at the pin rate. This is BL / 2 on a DDR bus clocked at
  // tCK (HBM2, DDR4) but BL / 4 on HBM3 (data at 4x CK) and BL / 8 on LPDDR5 (WCK = 4x CK, DDR).
  [[nodiscard]] double burst_cycles() const {
    return static_cast<double>(timing.burst_length) / (data_rate_bits_per_s * tck_s);
  }
  // Pin bandwidth of one pseudo-channel (one channel where there are none).
  [[nodiscard]] BytesPerSecond channel_bandwidth_bytes_per_s() const {
    return data_rate_bits_per_s * bus_width_bits / 8.0;
  }
};

enum class DramModel { simple, detailed };
enum class PagePolicy { open, closed, adaptive };
enum class DramScheduler { frfcfs, fcfs };
// `standard`: per-bank refresh where the standard has it (REFsb, REFpb), else all-bank; resolved when the standard is
// known (resolved_refresh()), so a controller only ever sees the other three.
enum class RefreshMode { all_bank, per_bank, none, standard };

struct DramParams {
  DramStandardParams standard;
  std::uint32_t stacks = 0;  // HBM stacks (or DIMMs / packages)
  Bytes capacity_bytes = 0;
  Seconds latency_s = 0;  // unloaded read latency seen by a unit (simple model, and the latency line)
  DramModel model = DramModel::simple;
  std::string mapping;  // address-bit order, most significant first ("RoBaBgCoCh")
  PagePolicy page_policy = PagePolicy::open;
  DramScheduler scheduler = DramScheduler::frfcfs;
  RefreshMode refresh = RefreshMode::all_bank;
  std::uint32_t read_queue = 0, write_queue = 0;  // entries per channel
  std::uint32_t write_high = 0, write_low = 0;    // write-drain watermarks (entries)
  std::uint32_t frfcfs_cap = 0;                   // row hits served before an older miss must go
  // All-bank refreshes (per-bank: rounds) the controller may owe; no more than the standard's refresh_postpone_max.
  std::uint32_t refresh_postpone = 0;
  Joules energy_per_byte_j = 0;  // simple model

  [[nodiscard]] std::uint32_t channels() const {  // independent channels of the device (pseudo-channels for HBM)
    return stacks * standard.channels * standard.pseudo_channels;
  }
  // The refresh mode the controller runs: `standard` becomes the standard's own (per-bank where it has it).
  [[nodiscard]] RefreshMode resolved_refresh() const {
    if (refresh != RefreshMode::standard) return refresh;
    return standard.per_bank_refresh ? RefreshMode::per_bank : RefreshMode::all_bank;
  }
  // The refreshes the controller may owe: the configured number, never beyond what the standard allows.
  [[nodiscard]] std::uint32_t resolved_refresh_postpone() const {
    return std::min(refresh_postpone, standard.refresh_postpone_max);
  }
  [[nodiscard]] BytesPerSecond peak_bandwidth_bytes_per_s() const {
    return standard.channel_bandwidth_bytes_per_s() * channels();
  }
};

// What is wrong with an address-mapping order ("RoBaChBgCo", "RoBaBgCoCh:xor"; address_mapping.h gives the grammar),
// or nothing: the configuration checks it when it reads a file, before any controller is built.
[[nodiscard]] std::optional<std::string> mapping_order_problem(const std::string& order);

}  // namespace roofsim
