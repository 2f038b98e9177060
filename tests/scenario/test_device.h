#pragma once
// Small devices and workloads built in code for the engine's tests: every figure is chosen by the test, so the
// closed forms the tests check follow from the parameters here rather than from a bundled file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/hardware_params.h"
#include "sim/graph/workload.h"

namespace roofsim::test {

struct TestDevice {
  std::uint64_t units = 4;
  std::uint64_t occupancy = 1;
  std::uint64_t outstanding = 1u << 20;  // effectively no limit
  Bytes request_bytes = 4096;
  double matrix_flops_per_cycle = 1024;  // bf16, per unit
  double vector_flops_per_cycle = 256;   // bf16 and fp32, per unit
  Hertz clock_hz = 1e9;
  Seconds launch_latency_s = 0;
  std::uint64_t streams = 1;
  // Local scratchpad per unit.
  bool smem = true;
  Bytes smem_bytes = 256 * 1024;
  double smem_bytes_per_cycle = 1e6;
  Seconds smem_latency_s = 0;
  // Shared L2 cache.
  bool l2 = true;
  Bytes l2_bytes = 4 * 1024 * 1024;
  double l2_bytes_per_cycle = 1e7;
  std::uint64_t l2_banks = 16;
  std::uint64_t l2_ways = 16;
  Seconds l2_latency_s = 0;
  // DRAM channels.
  bool dram = true;
  std::uint32_t dram_channels = 8;
  BytesPerSecond dram_channel_bytes_per_s = 100e9;
  Seconds dram_latency_s = 0;

  [[nodiscard]] HardwareParams build() const {
    HardwareParams hw;
    hw.name = "test-device";
    hw.launch_latency_s = launch_latency_s;
    hw.streams = streams;
    hw.compute.units = units;
    hw.compute.occupancy = occupancy;
    hw.compute.outstanding_requests = outstanding;
    hw.compute.request_bytes = request_bytes;
    EngineParams matrix{"matrix", clock_hz, {{DataType::bf16, matrix_flops_per_cycle}}, {}};
    EngineParams vector{
        "vector", clock_hz, {{DataType::bf16, vector_flops_per_cycle}, {DataType::fp32, vector_flops_per_cycle}}, {}};
    hw.compute.engines = {matrix, vector};
    if (smem) {
      MemoryLevelParams level;
      level.name = "smem";
      level.scope = LevelScope::unit;
      level.kind = LevelKind::scratchpad;
      level.capacity_bytes = smem_bytes;
      level.line_bytes = 128;
      level.associativity = 1;
      level.banks = 1;
      level.bytes_per_cycle = smem_bytes_per_cycle;
      level.clock_hz = clock_hz;
      level.latency_s = smem_latency_s;
      level.tracking_bytes = 4096;
      level.bandwidth_bytes_per_s = smem_bytes_per_cycle * clock_hz * static_cast<double>(units);
      hw.levels.push_back(level);
    }
    if (l2) {
      MemoryLevelParams level;
      level.name = "l2";
      level.scope = LevelScope::device;
      level.kind = LevelKind::cache;
      level.capacity_bytes = l2_bytes;
      level.line_bytes = 128;
      level.associativity = l2_ways;
      level.banks = l2_banks;
      level.bytes_per_cycle = l2_bytes_per_cycle;
      level.clock_hz = clock_hz;
      level.latency_s = l2_latency_s;
      level.tracking_bytes = 4096;
      level.bandwidth_bytes_per_s = l2_bytes_per_cycle * clock_hz;
      hw.levels.push_back(level);
    }
    if (dram) {
      DramParams d;
      d.standard.name = "test-dram";
      d.standard.channels = dram_channels;
      d.standard.pseudo_channels = 1;
      d.standard.bus_width_bits = 64;
      d.standard.timing.burst_length = 8;
      d.standard.row_bytes = 2048;
      d.standard.bank_groups = 4;
      d.standard.banks_per_group = 4;
      d.standard.data_rate_bits_per_s = dram_channel_bytes_per_s * 8.0 / 64.0;
      d.stacks = 1;
      d.capacity_bytes = 1ULL << 36;
      d.latency_s = dram_latency_s;
      d.mapping = "RoBaBgCoCh";
      hw.dram = d;
    }
    return hw;
  }
};

// Builds workloads op by op, allocating tensors at 64 KiB-aligned addresses and filling the counts the graph would.
class WorkloadBuilder {
 public:
  std::size_t tensor(const std::string& name, std::vector<std::uint64_t> shape, DataType dtype = DataType::bf16) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = dtype;
    std::uint64_t elements = 1;
    for (const auto d : t.shape) elements *= d;
    t.bytes = elements * element_bytes(dtype);
    t.address = next_address_;
    next_address_ += (t.bytes + kAlign - 1) / kAlign * kAlign;
    workload_.tensors.push_back(t);
    return workload_.tensors.size() - 1;
  }

  std::size_t gemm(const std::string& name, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                   std::optional<TileShape> tile = std::nullopt, std::uint64_t batch = 1) {
    const auto a = tensor(name + ".a", {batch, m, k});
    const auto b = tensor(name + ".b", {k, n});
    const auto c = tensor(name + ".c", {batch, m, n});
    Op op;
    op.name = name;
    op.kind = OpKind::gemm;
    op.dtype = DataType::bf16;
    op.shape.batch = batch;
    op.shape.m = m;
    op.shape.n = n;
    op.shape.k = k;
    op.tile = tile;
    op.inputs = {a, b};
    op.outputs = {c};
    op.useful_flops = 2 * batch * m * n * k;
    op.bytes_read = workload_.tensors[a].bytes + workload_.tensors[b].bytes;
    op.bytes_written = workload_.tensors[c].bytes;
    return add(std::move(op));
  }

  std::size_t elementwise(const std::string& name, std::uint64_t elements, std::size_t inputs = 2,
                          std::uint64_t flops_per_element = 1) {
    Op op;
    op.name = name;
    op.kind = OpKind::elementwise;
    op.dtype = DataType::bf16;
    op.shape.elements = elements;
    op.shape.flops_per_element = flops_per_element;
    for (std::size_t i = 0; i < inputs; ++i) {
      op.inputs.push_back(tensor(name + ".in" + std::to_string(i), {elements}));
      op.bytes_read += workload_.tensors[op.inputs.back()].bytes;
    }
    op.outputs = {tensor(name + ".out", {elements})};
    op.bytes_written = workload_.tensors[op.outputs.back()].bytes;
    op.useful_flops = elements * flops_per_element;
    return add(std::move(op));
  }

  std::size_t add(Op op) {
    workload_.ops.push_back(std::move(op));
    return workload_.ops.size() - 1;
  }
  Workload& workload() { return workload_; }

 private:
  static constexpr Bytes kAlign = 64 * 1024;
  Workload workload_;
  Bytes next_address_ = 1ULL << 30;
};

}  // namespace roofsim::test
