#include "sim/engine/ert_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/input_error.h"

namespace roofsim {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

Bytes round_up(Bytes value, Bytes unit) {
  return ceil_div(value, unit) * unit;
}

std::uint64_t next_power_of_two(double value) {
  std::uint64_t p = 1;
  while (static_cast<double>(p) < value && p < (1ULL << 40)) p *= 2;
  return p;
}

// Steps each tile makes in the short run at least: the pipeline reaches its steady state well before (it keeps at
// most 64 stages, usually 2 to 4), and the long run adds as many again.
constexpr std::uint64_t kMinStepsPerTile = 32, kQuickMinStepsPerTile = 16;

}  // namespace

std::string ErtKernelType::label() const {
  return engine + " " + std::string(to_string(dtype));
}

std::string_view to_string(ErtPurpose purpose) {
  switch (purpose) {
    case ErtPurpose::bandwidth: return "bandwidth";
    case ErtPurpose::intensity: return "intensity";
    case ErtPurpose::compute: return "compute";
  }
  return "bandwidth";
}

FlopsPerByte ErtPoint::intensity(DataType dtype) const {
  return static_cast<double>(flops_per_element) / (2.0 * static_cast<double>(element_bytes(dtype)));
}

std::uint64_t ErtPoint::chunk_accesses(Bytes request_bytes) const {
  const std::uint64_t chunks = ceil_div(working_set_bytes, request_bytes);
  return 2 * chunks * ((warm_up ? 1 : 0) + 3 * passes);
}

std::uint64_t ErtPlan::chunk_accesses() const {
  std::uint64_t total = 0;
  for (const auto& point : points) total += point.chunk_accesses(request_bytes);
  return total;
}

ErtPlan plan_ert(const HardwareParams& hw, const ErtOptions& options) {
  ErtPlan plan;
  plan.request_bytes = std::max<Bytes>(hw.compute.request_bytes, 8);
  plan.slots = std::max<std::uint64_t>(1, hw.compute.units * hw.compute.occupancy);
  const SourcePos where{hw.file.empty() ? hw.name : hw.file};

  // The kernel types and the memory type (highest peak; ties: the first).
  const BytesPerSecond main_bandwidth = hw.dram              ? hw.dram->peak_bandwidth_bytes_per_s()
                                        : !hw.levels.empty() ? hw.levels.back().bandwidth_bytes_per_s
                                                             : 0.0;
  for (const auto& engine : hw.compute.engines) {
    for (const auto& [dtype, per_cycle] : engine.flops_per_cycle) {
      if (!(per_cycle > 0)) continue;
      ErtKernelType type{engine.name, dtype, engine.peak_flops_per_s(dtype, hw.compute.units), 1};
      // Intensity at least 8 x the ridge P / B: FLOPs per element = intensity x 2 x element bytes.
      if (main_bandwidth > 0) {
        type.top_flops_per_element = next_power_of_two(16.0 * static_cast<double>(element_bytes(dtype)) *
                                                       type.peak_flops_per_s / main_bandwidth);
      }
      plan.types.push_back(type);
    }
  }
  if (plan.types.empty()) throw InputError(where, "compute.engines", "none", "at least one engine with a data type");
  for (std::size_t i = 1; i < plan.types.size(); ++i) {
    if (plan.types[i].peak_flops_per_s > plan.types[plan.memory_type].peak_flops_per_s) plan.memory_type = i;
  }

  // Working sets come in whole requests per slot, so that every tile's slice is the same.
  const Bytes unit = plan.slots * plan.request_bytes;
  Bytes inside = 0, kept = 0;  // the largest total of the levels inside; of those that keep data (caches)
  for (std::size_t l = 0; l < hw.levels.size(); ++l) {
    const auto& level = hw.levels[l];
    const Bytes total = level.capacity_bytes * (level.scope == LevelScope::unit ? hw.compute.units : 1);
    ErtBand band{level.name, std::max(inside + 1, 2 * kept), total, 0};
    if (level.kind == LevelKind::cache || l + 1 == hw.levels.size()) kept = std::max(kept, total);
    if (total >= band.from_bytes) {
      const Bytes representative = total / 4 * 3 / unit * unit;
      if (band.holds(representative)) band.representative_bytes = representative;
    }
    plan.bands.push_back(band);
    inside = std::max(inside, total);
  }
  Bytes largest = options.max_working_set_bytes;
  if (largest == 0) largest = hw.dram ? std::max<Bytes>(2 * inside, 64 * unit) : inside;
  largest = hw.dram ? round_up(largest, unit) : largest / unit * unit;
  if (largest < unit) {
    throw InputError(where, "--max-working-set", fmt::format("{} B", options.max_working_set_bytes),
                     fmt::format("at least one request per slot, {} B", unit));
  }
  if (hw.dram) {
    ErtBand dram{"dram", 2 * inside, ~Bytes{0}, 0};
    if (dram.holds(largest)) dram.representative_bytes = largest;
    plan.bands.push_back(dram);
  } else if (!plan.bands.empty() && plan.bands.back().to_bytes >= largest) {
    // Without DRAM the outermost level holds the data: its band's representative is the largest working set.
    plan.bands.back().representative_bytes = largest;
  }

  // The ladder of working sets.
  std::vector<Bytes> ladder;
  const std::uint64_t factor = options.quick ? 0 : 2;  // quick: the smallest, the representatives and the largest
  for (Bytes size = unit; size < largest; size = factor == 0 ? largest : size * factor) ladder.push_back(size);
  ladder.push_back(largest);
  for (const auto& band : plan.bands) {
    if (band.representative_bytes > 0 && band.representative_bytes <= largest) {
      ladder.push_back(band.representative_bytes);
    }
  }
  std::sort(ladder.begin(), ladder.end());
  ladder.erase(std::unique(ladder.begin(), ladder.end()), ladder.end());

  const auto band_of = [&](Bytes size) {
    for (const auto& band : plan.bands) {
      if (band.holds(size)) return band.level;
    }
    return std::string();
  };
  const std::uint64_t min_steps = options.quick ? kQuickMinStepsPerTile : kMinStepsPerTile;
  const auto make_point = [&](ErtPurpose purpose, std::size_t type, Bytes size, std::uint64_t flops_per_element) {
    ErtPoint point;
    point.purpose = purpose;
    point.type = type;
    point.working_set_bytes = size;
    point.flops_per_element = flops_per_element;
    const std::uint64_t chunks = ceil_div(size, plan.request_bytes);
    const std::uint64_t slice = ceil_div(chunks, std::min(plan.slots, chunks));
    point.band = band_of(size);
    point.warm_up = size <= inside;
    // At least two passes per run, so that the fill and drain of a run are a small part of it.
    point.passes = std::max<std::uint64_t>(2, ceil_div(min_steps, slice));
    return point;
  };

  const auto& memory = plan.types[plan.memory_type];
  for (const Bytes size : ladder) plan.points.push_back(make_point(ErtPurpose::bandwidth, plan.memory_type, size, 1));
  const std::uint64_t step = options.quick ? 16 : 4;
  for (const auto& band : plan.bands) {
    if (band.representative_bytes == 0) continue;
    for (std::uint64_t f = step; f < memory.top_flops_per_element * step; f *= step) {
      const std::uint64_t flops = std::min(f, memory.top_flops_per_element);
      plan.points.push_back(make_point(ErtPurpose::intensity, plan.memory_type, band.representative_bytes, flops));
    }
  }
  for (std::size_t t = 0; t < plan.types.size(); ++t) {
    const std::uint64_t top = plan.types[t].top_flops_per_element;
    std::vector<std::uint64_t> flops{top};
    if (!options.quick) flops = {std::max<std::uint64_t>(1, top / 4), std::max<std::uint64_t>(1, top / 2), top};
    flops.erase(std::unique(flops.begin(), flops.end()), flops.end());
    for (const auto f : flops) plan.points.push_back(make_point(ErtPurpose::compute, t, ladder.front(), f));
  }
  return plan;
}

}  // namespace roofsim
