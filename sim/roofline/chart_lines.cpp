#include "sim/roofline/chart_lines.h"

#include <algorithm>
#include <cmath>

namespace roofsim {

std::string ComputeLine::label() const {
  std::string text = engine + " ";
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    if (i > 0) text += "/";
    text += std::string(to_string(dtypes[i]));
  }
  return text;
}

RooflineLines device_lines(const DeviceRoof& device) {
  RooflineLines lines;
  for (const auto& engine : device.compute.engines) {
    for (const auto dtype : kAllDataTypes) {
      if (!engine.supports(dtype)) continue;
      const FlopsPerSecond peak = peak_flops_per_s(device, dtype, engine.name, device.nominal_clock_hz);
      auto same = std::find_if(lines.compute.begin(), lines.compute.end(), [&](const ComputeLine& line) {
        return line.engine == engine.name && line.peak_flops_per_s == peak;
      });
      if (same != lines.compute.end()) {
        same->dtypes.push_back(dtype);
      } else {
        lines.compute.push_back({engine.name, {dtype}, peak});
      }
    }
  }
  std::stable_sort(lines.compute.begin(), lines.compute.end(),
                   [](const ComputeLine& a, const ComputeLine& b) { return a.peak_flops_per_s > b.peak_flops_per_s; });

  for (const auto& level : device.levels) {
    lines.bandwidth.push_back({BandwidthKind::level, level.name, level.bandwidth_bytes_per_s});
  }
  if (device.dram_rows) {
    lines.bandwidth.push_back({BandwidthKind::dram_all_hit, "dram all-hit", device.dram_rows->all_hit_bytes_per_s});
    lines.bandwidth.push_back({BandwidthKind::dram_all_miss, "dram all-miss", device.dram_rows->all_miss_bytes_per_s});
  }
  if (device.latency_bandwidth_bytes_per_s() > 0) {
    lines.bandwidth.push_back({BandwidthKind::latency, "latency", device.latency_bandwidth_bytes_per_s()});
  }
  if (device.network_bandwidth_bytes_per_s > 0) {
    lines.bandwidth.push_back({BandwidthKind::network, "network", device.network_bandwidth_bytes_per_s});
  }
  if (device.main_bandwidth_bytes_per_s > 0) {
    for (const auto& line : lines.compute) {
      lines.ridges.push_back(
          {line.label(), line.peak_flops_per_s / device.main_bandwidth_bytes_per_s, line.peak_flops_per_s});
    }
  }
  return lines;
}

FlopsPerSecond power_capped_flops_per_s(const DeviceRoof& device, DataType dtype, const std::string& engine,
                                        FlopsPerByte oi) {
  // An op of 2^40 FLOPs whose every level moves FLOPs / OI bytes; the ceiling is a rate, so the size cancels.
  constexpr double kFlops = 1099511627776.0;
  RooflineInput input;
  input.flops = static_cast<Flops>(kFlops);
  const auto bytes = static_cast<Bytes>(std::max(1.0, std::round(kFlops / oi)));
  for (const auto& level : device.levels) input.bytes.push_back({level.name, bytes});
  input.dtype = dtype;
  input.engine = engine;
  return power_ceiling(device, input).flops_per_s;
}

FlopsPerSecond nominal_power_bound_flops_per_s(const DeviceRoof& device, DataType dtype, const std::string& engine,
                                               FlopsPerByte oi) {
  if (device.power_cap_w <= 0 || !(oi > 0)) return 0;
  const auto* chosen = device.compute.engine_for(dtype, engine);
  if (chosen == nullptr) return 0;
  const auto found = chosen->energy_per_flop_j.find(dtype);
  Joules per_flop = found == chosen->energy_per_flop_j.end() ? 0.0 : found->second;
  for (const auto& level : device.levels) per_flop += level.energy_per_byte_j / oi;
  const Watts available = device.power_cap_w - device_static_power_w(device, device.nominal_voltage_v) -
                          active_units_power_w(device, {device.nominal_clock_hz, device.nominal_voltage_v});
  if (per_flop <= 0 || available <= 0) return 0;
  return available / per_flop;
}

std::vector<CurvePoint> power_curve(const DeviceRoof& device, DataType dtype, const std::string& engine,
                                    FlopsPerByte oi_min, FlopsPerByte oi_max, int points_per_decade) {
  std::vector<CurvePoint> points;
  const double lo = std::log10(oi_min);
  const double hi = std::log10(oi_max);
  const int steps = std::max(1, static_cast<int>(std::ceil((hi - lo) * points_per_decade)));
  for (int i = 0; i <= steps; ++i) {
    const double oi = std::pow(10.0, lo + (hi - lo) * i / steps);
    points.push_back({oi, power_capped_flops_per_s(device, dtype, engine, oi)});
  }
  return points;
}

}  // namespace roofsim
