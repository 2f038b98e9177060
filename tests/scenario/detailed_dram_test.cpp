// The detailed DRAM model under the engine: a stream barely changes from the channel model (by its
// refresh, turnaround and row-miss shares), an access whose every burst opens a row runs at the bandwidth its
// measured row-hit rate predicts, each op's DRAM-aware ceiling is B(h) at its measured h between the all-miss and
// all-hit lines, and the bytes the engine asked of DRAM are the bursts the controller served. The closed forms
// (B(h), the lines) come from the DRAM timing in sim/roofline/dram_bandwidth.h, never from the simulator's output.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/hardware_params.h"
#include "sim/engine/engine.h"
#include "sim/roofline/dram_bandwidth.h"
#include "tests/scenario/test_device.h"
#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;
using roofsim::test::within;

namespace {

// STREAM on the H100 file through the CLI (one elaboration per process); 2^24 fp32 elements by default, 64 MiB
// arrays, so that three of them overflow the 50 MiB L2 and every op streams from DRAM.
nlohmann::json run_stream(const std::string& name, const std::string& sets, std::uint64_t elements = 1ULL << 24,
                          const std::string& device = "H100-SXM5.toml") {
  const auto out = test::scratch_dir(name);
  const auto result = test::run_roofsim(
      "run --hw " + test::config_path(device).string() + " --workload " + test::workload_path("stream.toml").string() +
      " --set workload.params.elements=" + std::to_string(elements) + " " + sets + " --out " + out.string());
  REQUIRE(result.exit_code == 0);
  std::ifstream file(out / "report.json");
  return nlohmann::json::parse(file);
}

DramRowBandwidth h100_rows(const std::vector<Override>& overrides = {}) {
  return dram_row_bandwidth(*load_hardware(test::config_path("H100-SXM5.toml"), overrides).dram);
}

}  // namespace

// HBM3 on the H100; HBM2e on the A100, whose tCCD_L (5 cycles) is not a whole number of 2-cycle slots.
// `refresh`: the device's refresh mode, set so that refresh blocks what the check below assumes.
void check_stream_losses(const std::string& device, const std::string& refresh_mode) {
  CAPTURE(device);
  const std::string sets = " --set dram.refresh=" + refresh_mode;
  const auto simple = run_stream("dram2_stream_simple_" + device, "--set dram.model=simple" + sets, 1ULL << 24, device);
  const auto detailed =
      run_stream("dram2_stream_detailed_" + device, "--set dram.model=detailed" + sets, 1ULL << 24, device);
  for (std::size_t i = 0; i < detailed["ops"].size(); ++i) {
    const auto& op = detailed["ops"][i];
    const double t_detailed = op["sim_time_s"].get<double>();
    const double t_simple = simple["ops"][i]["sim_time_s"].get<double>();
    const auto& dram = op["dram"];
    const double refresh = dram["refresh_share"].get<double>();
    const double losses = (dram["loss_s"]["refresh"].get<double>() + dram["loss_s"]["turnarounds"].get<double>() +
                           dram["loss_s"]["row_misses"].get<double>()) /
                          t_detailed;
    const double lost = 1.0 - t_simple / t_detailed;
    MESSAGE(op["name"].get<std::string>()
            << ": simple " << t_simple * 1e6 << " us, detailed " << t_detailed * 1e6 << " us, lost " << lost
            << ", refresh " << refresh << ", losses " << losses << ", h " << dram["row_hit_rate"].get<double>());
    // Refresh alone blocks the banks for tRFC of every tREFI; the time lost beyond the simple model is no more
    // than the measured refresh, turnaround and row-miss losses (plus 3 points for the pipeline's fill and drain).
    CHECK(lost >= refresh - 0.03);
    CHECK(lost <= losses + 0.03);
    CHECK(dram["row_hit_rate"].get<double>() >= 0.95);
  }
}

TEST_CASE("a stream on the detailed DRAM slows from the simple model by its refresh, turnaround and row-miss shares") {
  // All-bank refresh blocks every bank for tRFC; the A100 file's per-bank refresh (its own choice) is kept.
  check_stream_losses("H100-SXM5.toml", "all_bank");
  check_stream_losses("A100-SXM4-80GB.toml", "per_bank");
}

TEST_CASE("a stream whose every burst opens a row runs at about the bandwidth its measured row-hit rate predicts") {
  // Consecutive bursts over channels, then bank groups, then banks, and a closed page: every part is one burst that
  // opens its row in a bank other than its predecessor's, so h is 0 and the ACT rate (tRRD, tFAW), not tRC, limits.
  const std::string sets = "--set dram.mapping=RoCoBaBgCh --set dram.page_policy=closed";
  // 32 MiB arrays: one op at a time fits in L2, but every write goes through to DRAM, so each op is DRAM-bound.
  const auto report = run_stream("dram2_stream_misses", sets, 1ULL << 23);
  const auto rows = h100_rows({{"dram.mapping", "RoCoBaBgCh"}, {"dram.page_policy", "closed"}});
  for (const auto& op : report["ops"]) {
    const double h = op["dram"]["row_hit_rate"].get<double>();
    const double bytes = op["bytes"]["dram"].get<double>();
    const double predicted_s = bytes / blended_dram_bandwidth(rows, h);
    const double t = op["sim_time_s"].get<double>();
    MESSAGE(op["name"].get<std::string>()
            << ": h " << h << ", simulated " << t * 1e6 << " us, bytes / B(h) " << predicted_s * 1e6
            << " us, at the pin rate " << bytes / rows.peak_bytes_per_s * 1e6 << " us");
    CHECK(h <= 0.01);
    // B(h) is a ceiling: no faster than it; the controller reaches at least 70% of it (the ramp of each op, ACTs
    // that the request order does not spread evenly over the banks, and a look-ahead of the queue depth less the
    // requests committed but not yet served take the rest).
    CHECK(t >= predicted_s * (1 - 1e-3));
    CHECK(t <= predicted_s / 0.7);
  }
}

TEST_CASE(
    "each op's DRAM-aware ceiling is B(h) at its measured row-hit rate, between the all-miss and all-hit lines, and no "
    "op beats it") {
  const auto report = run_stream("dram2_ceiling", "");
  const auto rows = h100_rows();
  for (const auto& op : report["ops"]) {
    const double h = op["row_hit_rate"].get<double>();
    CHECK(h == op["dram"]["row_hit_rate"].get<double>());
    const double b_h =
        h >= 1.0 ? rows.all_hit_bytes_per_s : std::min(rows.all_hit_bytes_per_s, rows.all_miss_bytes_per_s / (1.0 - h));
    const double measured_b = op["dram"]["ceiling_bandwidth_B_per_s"].get<double>();
    CHECK(within(measured_b, b_h, 1e-9));
    CHECK(measured_b >= rows.all_miss_bytes_per_s * (1 - 1e-12));
    CHECK(measured_b <= rows.all_hit_bytes_per_s * (1 + 1e-12));
    // A ceiling: the controller moves the op's bytes no faster than B(h) (1% for the rounding of the measured h).
    const double dram_bytes = op["bytes"]["dram"].get<double>();
    CHECK(op["sim_time_s"].get<double>() >= dram_bytes / b_h * 0.99);
    const double flops = op["useful_flops"].get<double>();
    if (flops > 0) {
      // Streams are far below the ridge: the DRAM-aware ceiling is OI x B(h).
      const double oi = flops / op["bytes"]["dram"].get<double>();
      CHECK(within(op["ceilings"]["dram"].get<double>(), oi * b_h, 1e-9));
    }
  }
}

TEST_CASE("bytes the engine asks of the detailed DRAM are the bursts x burst size the controller serves") {
  auto hw = load_hardware(test::config_path("H100-SXM5.toml"), {{"dram.model", "detailed"}});
  hw.compute.units = 16;
  test::WorkloadBuilder builder;
  const std::uint64_t elements = 2ULL << 20;  // 4 MiB per bf16 operand, 64 KiB-aligned: whole bursts
  builder.elementwise("add", elements, 2);
  const auto result = run_workload(hw, builder.workload());
  REQUIRE(result.dram_model == "detailed");
  const Bytes asked = 3 * elements * 2;
  Bytes op_dram = 0;
  for (const auto& [level, bytes] : result.ops.at(0).bytes) {
    if (level == "dram") op_dram = bytes;
  }
  CHECK(op_dram == asked);
  CHECK(result.dram_asked_burst_bytes == asked);
  CHECK(result.dram_served_burst_bytes == asked);
  CHECK(result.ops.at(0).dram.bursts * hw.dram->standard.burst_bytes() == asked);
}

TEST_CASE("with the detailed DRAM an op's DRAM energy is its command counts x the standard's command energies") {
  // Without SRAM energies the copy op (no FLOPs, no network) spends dynamic energy in DRAM alone.
  // All-bank refresh, whose REF energy is the standard's `ref` per command.
  // The DRAM's energy alone: no SRAM energy, no clock power of the units holding the copy's tiles.
  const std::string no_sram =
      " --set memory.smem.energy_per_byte=0pJ --set memory.l2.energy_per_byte=0pJ"
      " --set power.active_unit_energy=0pJ --set dram.refresh=all_bank";
  const auto detailed = run_stream("dram2_energy_detailed", "--set dram.model=detailed" + no_sram);
  const auto simple = run_stream("dram2_energy_simple", "--set dram.model=simple" + no_sram);
  const auto hw = load_hardware(test::config_path("H100-SXM5.toml"));
  const auto& energy = hw.dram->standard.energy;
  const auto burst_bytes = static_cast<std::uint64_t>(hw.dram->standard.burst_bytes());
  const auto& op = detailed["ops"][0];
  REQUIRE(op["name"].get<std::string>() == "copy");
  REQUIRE(op["executed_flops"].get<double>() == 0.0);
  const auto dram_bytes = op["bytes"]["dram"].get<std::uint64_t>();
  const auto& commands = op["dram"]["commands"];
  const auto count = [&](const char* name) { return commands[name].get<std::uint64_t>(); };
  // A row-aligned stream: one RD or WR per burst of the bytes asked, one ACT per row the op opened, and refreshes.
  CHECK(count("rd") + count("wr") == dram_bytes / burst_bytes);
  CHECK(count("rd") == count("wr"));
  CHECK(count("act") == op["dram"]["row_opens"].get<std::uint64_t>());
  CHECK(count("act") > 0);
  CHECK(count("ref_all_bank") > 0);
  CHECK(count("ref_per_bank") == 0);
  const double expected_j =
      static_cast<double>(count("act")) * energy.act_j + static_cast<double>(count("pre")) * energy.pre_j +
      static_cast<double>(count("rd")) * energy.rd_j + static_cast<double>(count("wr")) * energy.wr_j +
      static_cast<double>(count("ref_all_bank")) * energy.ref_j;
  MESSAGE("copy: ", count("act"), " ACT, ", count("pre"), " PRE, ", count("rd"), " RD, ", count("wr"), " WR, ",
          count("ref_all_bank"), " REF: ", expected_j * 1e3, " mJ, simulated ",
          op["power"]["dynamic_j"].get<double>() * 1e3, " mJ");
  CHECK(within(op["power"]["dynamic_j"].get<double>(), expected_j, 1e-9));
  // The simple model counts the same bytes at the device's energy per byte.
  const auto& simple_op = simple["ops"][0];
  CHECK(within(simple_op["power"]["dynamic_j"].get<double>(),
               static_cast<double>(simple_op["bytes"]["dram"].get<std::uint64_t>()) * hw.dram->energy_per_byte_j,
               1e-9));
}

TEST_CASE("the A100's refresh mode admits the share of its pin rate a GA100 kernel measures and all-bank would not") {
  // configs/A100-SXM4-80GB.toml [BW]: an element-wise kernel that reads and writes moves 1727 of 1935 GB/s on A800
  // 80GB PCIe (the same GA100 and HBM2e). All-bank refresh holds every bank tRFC of each tREFI, so no controller
  // could pass 1 - tRFC / tREFI of the pin rate; per-bank refresh leaves the other banks serving.
  const double measured_share = 1727.0 / 1935.0;
  const auto hw = load_hardware(test::config_path("A100-SXM4-80GB.toml"));
  const auto& dram = *hw.dram;
  CHECK(dram.refresh == RefreshMode::per_bank);
  const auto configured = dram_row_bandwidth(dram);
  const auto all_bank = dram_row_bandwidth(dram.standard, RefreshMode::all_bank, dram.channels());
  MESSAGE("row-hit ceiling / pin rate: configured "
          << configured.all_hit_bytes_per_s / configured.peak_bytes_per_s << ", all-bank "
          << all_bank.all_hit_bytes_per_s / all_bank.peak_bytes_per_s << ", measured " << measured_share);
  CHECK(configured.all_hit_bytes_per_s >= measured_share * configured.peak_bytes_per_s);
  CHECK(all_bank.all_hit_bytes_per_s < measured_share * all_bank.peak_bytes_per_s);
}
