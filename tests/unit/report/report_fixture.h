#pragma once
// A report built without a workload file: an H100-like device in base units and a handful of ops of different
// character (compute-bound GEMMs, streams, a gather, a collective, a tiny launch-bound op).
#include <string>

#include "sim/results/report_model.h"
#include "sim/roofline/roofline.h"

namespace roofsim::test {

inline DeviceRoof h100_like_device() {
  DeviceRoof device;
  device.name = "H100-like";
  device.compute.units = 132;
  EngineParams matrix;
  matrix.name = "matrix";
  matrix.clock_hz = 1.83e9;
  matrix.flops_per_cycle = {{DataType::fp64, 256},  {DataType::tf32, 2048}, {DataType::bf16, 4096},
                            {DataType::fp16, 4096}, {DataType::fp8, 8192},  {DataType::int8, 8192}};
  matrix.energy_per_flop_j = {{DataType::fp16, 0.55e-12}, {DataType::bf16, 0.55e-12}, {DataType::fp8, 0.3e-12}};
  EngineParams vector;
  vector.name = "vector";
  vector.clock_hz = 1.83e9;
  vector.flops_per_cycle = {{DataType::fp64, 128}, {DataType::fp32, 256}, {DataType::fp16, 512}};
  vector.energy_per_flop_j = {{DataType::fp32, 1.2e-12}, {DataType::fp16, 0.8e-12}};
  device.compute.engines = {matrix, vector};
  device.levels = {
      {"smem", 132 * 128 * 1.83e9, 0.1e-12, true}, {"l2", 5.5e12 * 2, 0.5e-12, true}, {"dram", 3.35e12, 25e-12, false}};
  device.main_memory = "dram";
  device.main_bandwidth_bytes_per_s = 3.35e12;
  DramRowBandwidth rows;
  rows.peak_bytes_per_s = 3.35e12;
  rows.all_hit_bytes_per_s = 3.35e12 * 0.96;
  rows.all_miss_bytes_per_s = 1.2e12;
  device.dram_rows = rows;
  device.bytes_in_flight = 132ULL * 32 * 4096;
  device.memory_latency_s = 600e-9;
  device.launch_latency_s = 4e-6;
  device.power_cap_w = 700;
  device.static_power_w = 120;
  device.nominal_voltage_v = 1.0;
  device.nominal_clock_hz = 1.83e9;
  device.dvfs = {{1.2e9, 0.8}, {1.5e9, 0.9}, {1.83e9, 1.0}};
  device.network_bandwidth_bytes_per_s = 18 * 25e9;
  return device;
}

inline OpReport make_op(const DeviceRoof& device, const std::string& name, const std::string& kind, DataType dtype,
                        double flops, double bytes, double hit = 1.0, double network_bytes = 0) {
  RooflineInput input;
  input.flops = static_cast<Flops>(flops);
  for (const auto& level : device.levels) input.bytes.push_back({level.name, static_cast<Bytes>(bytes)});
  input.row_hit_rate = hit;
  input.network_bytes = static_cast<Bytes>(network_bytes);
  input.dtype = dtype;
  OpReport op;
  op.name = name;
  op.kind = kind;
  op.dtype = dtype;
  op.engine = device.compute.engine_for(dtype)->name;
  op.useful_flops = input.flops;
  op.executed_flops = input.flops;
  op.bytes = input.bytes;
  op.network_bytes = input.network_bytes;
  op.row_hit_rate = hit;
  op.roofline = evaluate_roofline(device, input);
  return op;
}

inline Report sample_report(const DeviceRoof& device) {
  Report report;
  report.hardware_name = device.name;
  report.hardware_file = "configs/H100-like.toml";
  report.workload_name = "sample";
  report.workload_file = "workloads/sample.toml";
  for (const auto& level : device.levels) report.levels.push_back(level.name);
  report.main_memory = device.main_memory;
  const double g = 8192, h = 12288;
  report.ops.push_back(make_op(device, "gemm_8192^3", "gemm", DataType::fp16, 2 * g * g * g, 2 * 3 * g * g));
  report.ops.push_back(
      make_op(device, "gemm_8192x128x8192", "gemm", DataType::fp16, 2 * g * 128 * g, 2 * (g * 128 + 128 * g + g * g)));
  report.ops.push_back(make_op(device, "qkv_proj", "gemm", DataType::bf16, 2 * 2048 * h * 3 * h,
                               2 * (2048 * h + h * 3 * h + 2048 * 3 * h)));
  report.ops.push_back(
      make_op(device, "attn_out", "gemm", DataType::bf16, 2 * 2048 * h * h, 2 * (2048 * h + h * h + 2048 * h)));
  report.ops.push_back(make_op(device, "mlp_up", "gemm", DataType::bf16, 2 * 2048 * h * 4 * h,
                               2 * (2048 * h + 4 * h * h + 2048 * 4 * h)));
  report.ops.push_back(make_op(device, "mlp_down", "gemm", DataType::bf16, 2 * 2048 * h * 4 * h,
                               2 * (2048 * h + 4 * h * h + 2048 * 4 * h)));
  report.ops.push_back(
      make_op(device, "softmax", "softmax", DataType::fp16, 5 * 96 * 2048.0 * 2048, 2 * 2 * 96 * 2048.0 * 2048));
  report.ops.push_back(make_op(device, "layernorm", "layernorm", DataType::fp16, 8 * 2048 * h, 2 * 2 * 2048 * h));
  report.ops.push_back(make_op(device, "residual_add", "elementwise", DataType::fp16, 2048 * h, 3 * 2 * 2048 * h));
  report.ops.push_back(
      make_op(device, "embedding", "embedding", DataType::fp16, 2048 * h * 0.01, 2 * 2 * 2048 * h, 0.0));
  report.ops.push_back(make_op(device, "grad_allreduce", "allreduce", DataType::bf16, 2 * 350e6 * 7 / 8, 2 * 3 * 350e6,
                               1.0, 2 * 2 * 350e6 * 7 / 8));
  report.ops.push_back(make_op(device, "tiny_scale", "elementwise", DataType::fp32, 4096, 2 * 4 * 4096));
  report.ops.push_back(make_op(device, "sendrecv", "sendrecv", DataType::bf16, 0, 1e6, 1.0, 1e6));
  report.ops.push_back(make_op(device, "fp8_gemm", "gemm", DataType::fp8, 2 * g * g * g, 3 * g * g));
  report.ops.push_back(
      make_op(device, "tf32_gemm", "gemm", DataType::tf32, 2 * 4096.0 * 4096 * 4096, 4 * 3 * 4096.0 * 4096));
  return report;
}

}  // namespace roofsim::test
