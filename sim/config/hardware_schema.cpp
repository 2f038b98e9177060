// The hardware file's schema: every key, its unit, default and meaning. `roofsim list --keys` prints this table.
#include "sim/config/enum_spellings.h"
#include "sim/config/hardware_params.h"
#include "sim/config/key_spec.h"

namespace roofsim {

namespace {
using namespace schema;
constexpr double kMiB = 1 << 20;
constexpr double kGiB = 1 << 30;
constexpr double kTiB = kGiB * 1024;
constexpr double kMillisecond = 1e-3;
// A hop of seconds (a wide-area or satellite link in a what-if study) is physical, and the idle stretch it makes
// costs the simulation nothing: the governor and the DRAM skip idle time.
constexpr double kLinkLatencyMax_s = 10.0;
// A DRAM pin's data rate, 100 Mb/s .. 100 Gb/s, in B/s.
constexpr ValueRange kPinDataRate = within(100e6 / 8, 100e9 / 8);
}  // namespace

const KeyRegistry& hardware_registry() {
  static const KeyRegistry registry(
      "hardware",
      {
          {"device", K::section, Q::bytes, req, "", "The device as a whole"},
          {"device.name", K::text, Q::bytes, req, "", "Name shown in reports", &HardwareParams::name},
          {"device.vendor", K::text, Q::bytes, opt, "", "Vendor, for reports"},
          {"device.source", K::text, Q::bytes, opt, "", "Where the figures of this file come from"},
          {"device.derived", K::flag, Q::bytes, opt, "false",
           "True when the figures are a design point rather than a datasheet (the peak test then checks them "
           "against themselves)",
           by_hand},
          {"device.launch_latency", K::quantity, Q::time, opt, "4us",
           "Time from an op's inputs being ready to its first tile starting (kernel launch)",
           &HardwareParams::launch_latency_s, within(0, kMillisecond)},
          {"device.streams", K::count, Q::bytes, opt, "1", "Independent ops that may run concurrently",
           &HardwareParams::streams, within(1, 1024)},
          {"device.peak_flops", K::section, Q::bytes, opt, "",
           "Cited dense datasheet peak per data type, TFLOP/s (checked by a test, not used by the model)"},
          {"device.peak_flops.<dtype>", K::real, Q::bytes, opt, "", "Cited dense peak, TFLOP/s", Field(),
           within(1e-3, 1e6)},
          {"device.peak_dram_bandwidth", K::quantity, Q::bandwidth, opt, "",
           "Cited DRAM bandwidth (checked by a test against pins x rate, not used by the model)"},

          {"compute", K::section, Q::bytes, req, "", "Compute units and their engines"},
          {"compute.units", K::count, Q::bytes, req, "", "Compute units (SMs, CUs, TPU cores)", &ComputeParams::units,
           within(1, 1e6)},  // Cerebras WSE-3: 900,000 cores
          {"compute.occupancy", K::count, Q::bytes, opt, "1",
           "Tiles resident per unit at once; resident tiles share the unit's engines", &ComputeParams::occupancy,
           within(1, 64)},  // an SM holds at most 32 resident thread blocks (CUDA Programming Guide)
          {"compute.outstanding_requests", K::count, Q::bytes, opt, "32",
           "Memory requests in flight per unit; with request_bytes and latency it bounds a unit's bandwidth "
           "(Little's law)",
           &ComputeParams::outstanding_requests, within(1, 65536)},
          {"compute.request_bytes", K::quantity, Q::bytes, opt, "4KiB",
           "Size of one memory request (chunk): the unit of simulated data movement", &ComputeParams::request_bytes,
           within(32, kMiB)},
          {"compute.default_tile", K::section, Q::bytes, opt, "", "GEMM tile used when an op names none"},
          {"compute.default_tile.m", K::count, Q::bytes, req, "", "Tile rows (elements)", &TileShape::m,
           within(1, 65536)},
          {"compute.default_tile.n", K::count, Q::bytes, req, "", "Tile columns (elements)", &TileShape::n,
           within(1, 65536)},
          {"compute.default_tile.k", K::count, Q::bytes, req, "", "Tile depth of one k-step (elements)", &TileShape::k,
           within(1, 65536)},
          {"compute.kernel_schedule", K::choice, Q::bytes, opt, "serial",
           "How a tile orders the phases of its steps when the op names none: serial (FlashAttention-2: softmax "
           "waits for S = QK^T, PV for the softmax) or pingpong (FlashAttention-3: the next block's QK^T is issued "
           "before the softmax ends)",
           &ComputeParams::kernel_schedule},
          {"compute.engines", K::section, Q::bytes, req, "", "Execution engines of a unit"},
          {"compute.engines.<name>", K::section, Q::bytes, opt, "",
           "One engine: \"matrix\" (tensor cores, MXU), \"vector\" (SIMT lanes, VPU) or \"special_function\" (SFU)"},
          {"compute.engines.<name>.clock", K::quantity, Q::frequency, req, "", "Nominal clock of the engine",
           &EngineParams::clock_hz},
          {"compute.engines.<name>.flops_per_cycle", K::section, Q::bytes, opt, "",
           "Dense FLOPs per cycle per unit, per data type (an FMA counts 2)"},
          {"compute.engines.<name>.flops_per_cycle.<dtype>", K::count, Q::bytes, opt, "",
           "Dense FLOPs per cycle per unit for this data type", by_hand, within(1, 1e7)},
          {"compute.engines.<name>.energy_per_flop", K::section, Q::bytes, opt, "",
           "Dynamic energy per FLOP at nominal voltage, per data type"},
          {"compute.engines.<name>.energy_per_flop.<dtype>", K::quantity, Q::energy, opt, "",
           "Dynamic energy per FLOP for this data type", by_hand},
          {"compute.engines.<name>.ops_per_cycle", K::section, Q::bytes, opt, "",
           "Lane operations per cycle per unit, per operation class (vector and special-function engines; one FMA is "
           "one operation)"},
          {"compute.engines.<name>.ops_per_cycle.fp32_fma", K::real, Q::bytes, opt, "",
           "FP32 FMA-class operations (fma, add, multiply) per cycle per unit; 2x this = flops_per_cycle.fp32", by_hand,
           within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.fp32_alu", K::real, Q::bytes, opt, "",
           "FP32 ALU-class operations (max, min, compare, conversion) per cycle per unit", by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.fp16_fma", K::real, Q::bytes, opt, "",
           "FP16 FMA-class operations per cycle per unit (a packed half2 FMA is two); 2x this = flops_per_cycle.fp16",
           by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.fp16_alu", K::real, Q::bytes, opt, "",
           "FP16 ALU-class operations per cycle per unit", by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.bf16_fma", K::real, Q::bytes, opt, "",
           "BF16 FMA-class operations per cycle per unit; 2x this = flops_per_cycle.bf16", by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.bf16_alu", K::real, Q::bytes, opt, "",
           "BF16 ALU-class operations per cycle per unit", by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.exp2", K::real, Q::bytes, opt, "",
           "Special-function base-2 exponentials (and tanh) per cycle per unit", by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.reciprocal", K::real, Q::bytes, opt, "",
           "Special-function reciprocals per cycle per unit", by_hand, within(1e-3, 1e7)},
          {"compute.engines.<name>.ops_per_cycle.rsqrt", K::real, Q::bytes, opt, "",
           "Special-function reciprocal square roots per cycle per unit", by_hand, within(1e-3, 1e7)},

          {"memory", K::section, Q::bytes, opt, "",
           "On-chip memory levels, listed from the compute units outward (DRAM is [dram])"},
          {"memory.<name>", K::section, Q::bytes, opt, "", "One SRAM level (scratchpad or cache)"},
          {"memory.<name>.scope", K::choice, Q::bytes, req, "", "unit: one per compute unit; device: shared",
           &MemoryLevelParams::scope},
          {"memory.<name>.kind", K::choice, Q::bytes, opt, "cache",
           "scratchpad (software-managed tiles) or cache (tags, LRU)", &MemoryLevelParams::kind},
          {"memory.<name>.capacity", K::quantity, Q::bytes, req, "",
           "Capacity (per unit for unit scope, total for device scope)", &MemoryLevelParams::capacity_bytes,
           within(0, kTiB)},
          {"memory.<name>.line_size", K::quantity, Q::bytes, opt, "128B", "Line (sector) size; divides capacity",
           &MemoryLevelParams::line_bytes, within(1, kMiB)},
          {"memory.<name>.associativity", K::count, Q::bytes, opt, "16", "Ways per set (caches)",
           &MemoryLevelParams::associativity, within(1, 1 << 20)},
          {"memory.<name>.banks", K::count, Q::bytes, opt, "1", "Independently addressed banks",
           &MemoryLevelParams::banks, within(1, 65536)},
          {"memory.<name>.bytes_per_cycle", K::real, Q::bytes, req, "",
           "Bytes delivered per cycle (per unit for unit scope, whole level for device scope)",
           &MemoryLevelParams::bytes_per_cycle, within(1e-3, 1e8)},
          {"memory.<name>.clock", K::quantity, Q::frequency, req, "", "Clock of the level",
           &MemoryLevelParams::clock_hz},
          {"memory.<name>.latency", K::quantity, Q::time, req, "",
           "Unloaded access latency (cycles of the level's clock allowed)", by_hand, within(0, kMillisecond)},
          {"memory.<name>.tracking_granularity", K::quantity, Q::bytes, opt, "4KiB",
           "Granularity of simulated cache tags (coarser than lines; keeps events per chunk, not per line)",
           &MemoryLevelParams::tracking_bytes, within(1, kGiB)},
          {"memory.<name>.energy_per_byte", K::quantity, Q::energy, opt, "0pJ", "Dynamic energy per byte accessed",
           &MemoryLevelParams::energy_per_byte_j},

          {"dram", K::section, Q::bytes, opt, "", "Off-chip DRAM (absent on SRAM-only designs)"},
          {"dram.standard", K::text, Q::bytes, req, "",
           "A DRAM standard file in configs/dram/, by name (\"HBM3-6400\")", by_hand},
          {"dram.data_rate", K::quantity, Q::bandwidth, opt, "",
           "Pin data rate if it differs from the standard's (\"5.23Gb/s\"); tCK scales, ns timings keep their "
           "duration",
           by_hand, kPinDataRate},
          {"dram.stacks", K::count, Q::bytes, req, "", "HBM stacks (or DIMMs/packages)", &DramParams::stacks,
           within(1, 64)},
          {"dram.capacity", K::quantity, Q::bytes, req, "", "Total capacity", &DramParams::capacity_bytes},
          {"dram.latency", K::quantity, Q::time, req, "",
           "Unloaded read latency seen by a compute unit (the simple model's fixed latency; the latency line)",
           &DramParams::latency_s, within(0, kMillisecond)},
          {"dram.model", K::choice, Q::bytes, opt, "detailed",
           "simple: per-channel bandwidth, fixed latency, FIFO; detailed: banks, row buffers, timing",
           &DramParams::model},
          // Default RoBaChBgCo: a row's columns, then the bank groups, below the channel, so 4 KiB (a whole
          // engine chunk on HBM: 1 KiB rows x 4 bank groups) stay in one channel as one row per bank group. The
          // controller serves such a chunk as four parts in one decision, its bursts alternating bank groups at
          // tCCD_S (full pin rate) after one ACT per row (h = 31/32 for a stream), and the next 4 KiB go to the next
          // channel. RoBaBgCoCh (channels every 32 B burst) would split a 4 KiB chunk into 128 one-burst parts over
          // all channels: the same bandwidth at 32 times the controller's work.
          {"dram.mapping", K::text, Q::bytes, opt, "RoBaChBgCo",
           "Address-bit order, most significant first (Ro row, Ba bank, Bg bank group, Co column, Ch channel); "
           "append :xor to permute bank, bank group and channel with the low row bits (RoBaBgCoCh:xor)",
           &DramParams::mapping},
          {"dram.page_policy", K::choice, Q::bytes, opt, "open", "Row-buffer policy", &DramParams::page_policy},
          {"dram.scheduler", K::choice, Q::bytes, opt, "frfcfs", "Command scheduler", &DramParams::scheduler},
          {"dram.refresh", K::choice, Q::bytes, opt, "standard",
           "Refresh mode (standard: per_bank where the standard file sets per_bank_refresh, else all_bank)",
           &DramParams::refresh},
          {"dram.read_queue", K::count, Q::bytes, opt, "64", "Read queue entries per channel", &DramParams::read_queue,
           within(1, 65536)},
          {"dram.write_queue", K::count, Q::bytes, opt, "64", "Write queue entries per channel",
           &DramParams::write_queue, within(1, 65536)},
          {"dram.write_high", K::count, Q::bytes, opt, "48", "Write-drain starts at this many queued writes",
           &DramParams::write_high, within(1, 65536)},
          {"dram.write_low", K::integer, Q::bytes, opt, "16", "Write-drain stops at this many queued writes",
           &DramParams::write_low, within(0, 65536)},
          {"dram.frfcfs_cap", K::count, Q::bytes, opt, "16",
           "Row hits FR-FCFS may serve ahead of an older request before that one must go", &DramParams::frfcfs_cap,
           within(1, 65536)},
          {"dram.energy_per_byte", K::quantity, Q::energy, opt, "0pJ",
           "Energy per byte transferred (simple model; the detailed model counts per command)",
           &DramParams::energy_per_byte_j},

          {"power", K::section, Q::bytes, opt, "", "Power, energy and DVFS"},
          {"power.tdp", K::quantity, Q::power, opt, "0W", "Thermal design power (0: unknown)", &PowerParams::tdp_w},
          {"power.cap", K::quantity, Q::power, opt, "",
           "Power cap the governor enforces (default: the TDP; absent with no TDP: no cap)", by_hand},
          {"power.static", K::quantity, Q::power, opt, "0W", "Static (leakage) power at nominal voltage",
           &PowerParams::static_w},
          {"power.nominal_voltage", K::quantity, Q::voltage, opt, "1V", "Voltage at which energies are given",
           &PowerParams::nominal_voltage_v},
          {"power.window", K::quantity, Q::time, opt, "10us", "Governor's power-averaging window",
           Field(&PowerParams::window_s, &PowerParams::nominal_clock_hz), within(1e-9, 1)},
          {"power.reaction_delay", K::quantity, Q::time, opt, "1us", "Governor's delay from decision to clock change",
           Field(&PowerParams::reaction_delay_s, &PowerParams::nominal_clock_hz)},
          {"power.up_hold", K::quantity, Q::time, opt, "80us",
           "Governor's up-step hysteresis: time whose mean power must predict a fit (whole windows)",
           Field(&PowerParams::up_hold_s, &PowerParams::nominal_clock_hz)},
          {"power.dvfs", K::section_array, Q::bytes, opt, "",
           "DVFS states of the compute domain (default: the nominal clock only)"},
          {"power.dvfs.[].clock", K::quantity, Q::frequency, req, "", "Compute-domain clock of the state",
           &DvfsState::clock_hz},
          {"power.dvfs.[].voltage", K::quantity, Q::voltage, req, "", "Supply voltage at that clock",
           &DvfsState::voltage_v},

          {"interconnect", K::section, Q::bytes, opt, "", "Device-to-device links (NVLink, ICI, Infinity Fabric)"},
          {"interconnect.links", K::integer, Q::bytes, opt, "0", "Links per device", &InterconnectParams::links,
           within(0, 1024)},
          {"interconnect.link_bandwidth", K::quantity, Q::bandwidth, opt, "0B/s", "Bandwidth per link per direction",
           &InterconnectParams::link_bandwidth_bytes_per_s, zero_or_within(1e3, 1e16)},
          {"interconnect.link_latency", K::quantity, Q::time, opt, "0ns", "Latency of one hop",
           &InterconnectParams::link_latency_s, within(0, kLinkLatencyMax_s)},
          {"interconnect.energy_per_byte", K::quantity, Q::energy, opt, "0pJ", "Energy per byte sent",
           &InterconnectParams::energy_per_byte_j},
      });
  return registry;
}

}  // namespace roofsim
