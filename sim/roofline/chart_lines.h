#pragma once
// Device-level lines of the roofline chart: what the device can do at any operational intensity, independent of the
// ops. The chart (sim/report/) draws these and places the ops among them.
#include <optional>
#include <string>
#include <vector>

#include "sim/roofline/roofline.h"

namespace roofsim {

// A horizontal line: the peak of one engine for the data types that share it (fp16 and bf16 usually do).
struct ComputeLine {
  std::string engine;
  std::vector<DataType> dtypes;
  FlopsPerSecond peak_flops_per_s = 0;
  [[nodiscard]] std::string label() const;  // "matrix fp16/bf16"
};

// A diagonal line y = bandwidth x OI.
enum class BandwidthKind { level, dram_all_hit, dram_all_miss, latency, network };
struct BandwidthLine {
  BandwidthKind kind = BandwidthKind::level;
  std::string name;  // level name, or "dram all-hit", "latency", ...
  BytesPerSecond bandwidth_bytes_per_s = 0;
};

// Where a compute line meets the main-memory line: OI = P / B.
struct RidgePoint {
  std::string compute_label;
  FlopsPerByte oi = 0;
  FlopsPerSecond flops_per_s = 0;
};

struct CurvePoint {
  FlopsPerByte oi = 0;
  FlopsPerSecond flops_per_s = 0;
};

struct RooflineLines {
  std::vector<ComputeLine> compute;      // descending peak
  std::vector<BandwidthLine> bandwidth;  // levels from the units outward (main memory last), then the others
  std::vector<RidgePoint> ridges;        // one per compute line, with the main memory
};

[[nodiscard]] RooflineLines device_lines(const DeviceRoof& device);

// The power-aware ceiling of an op of this type whose compulsory traffic has intensity `oi` at every level
// (the power-capped curve of the chart); 0 where the cap leaves nothing.
[[nodiscard]] FlopsPerSecond power_capped_flops_per_s(const DeviceRoof& device, DataType dtype,
                                                      const std::string& engine, FlopsPerByte oi);

// The cap alone at the nominal DVFS state, without the compute and memory roofs: (Pcap - P_static) / (e_flop +
// sum over levels of e_l / OI), Choi et al. 2013's power line turned into a rate. 0 without a cap or energies (the
// line does not exist), so the chart can show how far the cap sits above the roofs even where it does not bind.
[[nodiscard]] FlopsPerSecond nominal_power_bound_flops_per_s(const DeviceRoof& device, DataType dtype,
                                                             const std::string& engine, FlopsPerByte oi);

// The curve sampled log-uniformly on [oi_min, oi_max] with `points_per_decade` points per decade (both ends kept).
[[nodiscard]] std::vector<CurvePoint> power_curve(const DeviceRoof& device, DataType dtype, const std::string& engine,
                                                  FlopsPerByte oi_min, FlopsPerByte oi_max, int points_per_decade);

}  // namespace roofsim
