#pragma once
// A device built directly in base units, so a test states its peak and bandwidths in the terms of the closed form.
#include "sim/roofline/roofline.h"

namespace roofsim::test {

// One unit with one "matrix" engine at 1 GHz whose fp16 peak is `peak_flops_per_s`, DRAM of `dram_bytes_per_s`,
// no cap, no network, no latency or launch limit.
inline DeviceRoof simple_device(FlopsPerSecond peak_flops_per_s, BytesPerSecond dram_bytes_per_s) {
  DeviceRoof device;
  device.name = "test";
  device.compute.units = 1;
  EngineParams engine;
  engine.name = "matrix";
  engine.clock_hz = 1e9;
  engine.flops_per_cycle[DataType::fp16] = peak_flops_per_s / 1e9;
  device.compute.engines.push_back(engine);
  device.levels.push_back({"dram", dram_bytes_per_s, 0.0, false});
  device.main_memory = "dram";
  device.main_bandwidth_bytes_per_s = dram_bytes_per_s;
  device.nominal_clock_hz = 1e9;
  device.nominal_voltage_v = 1.0;
  device.dvfs.push_back({1e9, 1.0});
  return device;
}

// An op of `flops` FLOPs moving `bytes` at every level of the device.
inline RooflineInput op_input(const DeviceRoof& device, double flops, double bytes) {
  RooflineInput input;
  input.flops = static_cast<Flops>(flops);
  for (const auto& level : device.levels) input.bytes.push_back({level.name, static_cast<Bytes>(bytes)});
  input.dtype = DataType::fp16;
  return input;
}

}  // namespace roofsim::test
