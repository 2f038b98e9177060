#include "sim/results/run_trace.h"

#include <algorithm>
#include <string>

#include "sim/config/quantity.h"

namespace roofsim {

namespace {

// Power counter points kept at most; above, consecutive samples are merged k at a time (their energy over their
// time), so a long run's trace stays small while every joule stays in it.
constexpr std::size_t kMaxPowerPoints = 10000;

}  // namespace

void add_power_counters(const PowerRunStats& power, TraceData& data) {
  const auto& samples = power.trace;
  if (samples.empty()) return;
  const std::size_t k = (samples.size() + kMaxPowerPoints - 1) / kMaxPowerPoints;
  const std::string cap = power.cap_w > 0 ? " (cap " + format_si(power.cap_w, "W") + ")" : std::string();
  TraceCounter total{"power" + cap, "W", {}};
  TraceCounter compute{"power: compute dynamic", "W", {}};
  TraceCounter memory{"power: DRAM and links dynamic", "W", {}};
  TraceCounter leakage{"power: static", "W", {}};
  for (std::size_t i = 0; i < samples.size(); i += k) {
    const std::size_t j = std::min(samples.size(), i + k);
    const TimeFs start = samples[i].start_fs, end = samples[j - 1].end_fs;
    if (end <= start) continue;
    PowerSplit sum;  // energy in each part, W x s
    for (std::size_t n = i; n < j; ++n) {
      const double seconds = fs_to_seconds(samples[n].end_fs - samples[n].start_fs);
      sum.domain_dynamic_w += samples[n].power.domain_dynamic_w * seconds;
      sum.other_dynamic_w += samples[n].power.other_dynamic_w * seconds;
      sum.domain_static_w += samples[n].power.domain_static_w * seconds;
      sum.other_static_w += samples[n].power.other_static_w * seconds;
    }
    const double seconds = fs_to_seconds(end - start);
    const Seconds at = fs_to_seconds(start);
    total.points.emplace_back(at, sum.total_w() / seconds);
    compute.points.emplace_back(at, sum.domain_dynamic_w / seconds);
    memory.points.emplace_back(at, sum.other_dynamic_w / seconds);
    leakage.points.emplace_back(at, (sum.domain_static_w + sum.other_static_w) / seconds);
  }
  // The clock only where it changes (the governor's decisions), and its last value at the end of the run.
  TraceCounter clock{"compute clock", "GHz", {}};
  for (const auto& sample : samples) {
    if (clock.points.empty() || clock.points.back().second != sample.clock_hz / 1e9) {
      clock.points.emplace_back(fs_to_seconds(sample.start_fs), sample.clock_hz / 1e9);
    }
  }
  const Seconds end = fs_to_seconds(samples.back().end_fs);
  clock.points.emplace_back(end, samples.back().clock_hz / 1e9);
  // Power drops to 0 when the run ends.
  for (auto* counter : {&total, &compute, &memory, &leakage}) counter->points.emplace_back(end, 0.0);
  for (auto* counter : {&total, &compute, &memory, &leakage, &clock}) data.counters.push_back(std::move(*counter));
  data.counters_note +=
      "; power counters are the governor's measured averages over each interval between its wakes "
      "(a window, or the reaction delay before a clock change)";
  if (k > 1) {
    data.counters_note +=
        ", merged " + std::to_string(k) + " intervals at a time (their energy over their time) to keep the trace small";
  }
}

TraceData make_trace_data(const Workload& workload, const HardwareParams& hardware, const RunResult& result) {
  TraceData data;
  data.device = result.device;
  data.workload = result.workload;
  data.units = static_cast<std::uint32_t>(hardware.compute.units);
  data.slots_per_unit = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, hardware.compute.occupancy));
  for (std::size_t i = 0; i < result.ops.size(); ++i) {
    const auto& stats = result.ops[i];
    TraceOp op;
    op.name = stats.name;
    op.kind = stats.kind;
    op.launch_s = stats.launch_s;
    op.start_s = stats.start_s;
    op.end_s = stats.end_s;
    if (i < workload.ops.size()) op.after = workload.ops[i].after;
    if (i < result.power.ops.size()) {
      // The op's power figures beside its span; under a cap, its engines' mean clock and the time throttling cost.
      const auto& power = result.power.ops[i];
      op.args = {{"average_power_w", power.average_power_w}, {"energy_mj", power.energy_j * 1e3}};
      double busy = 0, weighted = 0;
      for (std::size_t s = 0; s < stats.busy_at_state_s.size() && s < result.power.states.size(); ++s) {
        busy += stats.busy_at_state_s[s];
        weighted += stats.busy_at_state_s[s] * result.power.states[s].clock_hz;
      }
      if (busy > 0) op.args.emplace_back("busy_clock_ghz", weighted / busy / 1e9);
      if (stats.throttle_s > 0) {
        op.args.emplace_back("throttling_loss_us",
                             stats.throttle_s / static_cast<double>(std::max<std::uint64_t>(result.units, 1)) * 1e6);
      }
    }
    data.ops.push_back(std::move(op));
  }
  data.tiles.reserve(result.tile_spans.size());
  for (const auto& span : result.tile_spans) {
    data.tiles.push_back(
        TraceTile{span.op, span.unit, span.slot, fs_to_seconds(span.start_fs), fs_to_seconds(span.end_fs)});
  }
  // Bandwidth of the device-scope levels and DRAM (unit-scope levels are per unit and far from binding).
  std::vector<std::string> levels;
  for (const auto& level : hardware.levels) {
    if (level.scope == LevelScope::device) levels.push_back(level.name);
  }
  if (hardware.dram) levels.emplace_back("dram");
  for (const auto& level : levels) {
    std::vector<Bytes> bytes;
    for (const auto& stats : result.ops) {
      Bytes b = 0;
      for (const auto& [name, value] : stats.bytes) {
        if (name == level) b = value;
      }
      bytes.push_back(b);
    }
    data.counters.push_back(spread_bandwidth(level + " bandwidth", data.ops, bytes));
  }
  data.counters_note =
      "bandwidth counters spread each op's measured bytes at the level evenly over its first tile to its end";
  add_power_counters(result.power, data);
  return data;
}

}  // namespace roofsim
