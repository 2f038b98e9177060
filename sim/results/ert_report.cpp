#include "sim/results/ert_report.h"

#include <fmt/format.h>

#include "sim/config/quantity.h"

namespace roofsim {

namespace {

double ratio_of(double measured, double analytic) {
  return measured > 0 && analytic > 0 ? measured / analytic : 0.0;
}

// What in the model shapes the ceilings the kernel can reach, read from the device's parameters.
std::vector<std::string> model_notes(const HardwareParams& hw, const ErtReport& report) {
  std::vector<std::string> notes;
  for (const auto& level : hw.levels) {
    if (level.kind == LevelKind::scratchpad && hw.levels.size() > 1 && &level != &hw.levels.back()) {
      notes.push_back(fmt::format(
          "{} is a scratchpad with levels below it: it stages each chunk on its way to the unit and keeps nothing "
          "between steps, so the kernel's loads in its band are served by the level below it (at most {}'s "
          "bandwidth and its own port's).",
          level.name, level.name));
    }
  }
  for (const auto& band : report.bands) {
    if (band.from_bytes > band.to_bytes) {
      notes.push_back(
          fmt::format("{} has no band of working sets (none above {}, where the levels inside it end, "
                      "fits its {}): it is not measured.",
                      band.level, format_bytes(band.from_bytes - 1), format_bytes(band.to_bytes)));
    }
  }
  if (hw.dram && !hw.levels.empty()) {
    notes.push_back(
        "Stores go through every level to DRAM (the memory model writes through), so at every working set the "
        "kernel's stores, half its bytes, draw DRAM bandwidth: no band's ceiling exceeds twice the DRAM's analytic "
        "bandwidth.");
  }
  if (report.throttled_s > 0) {
    notes.push_back(
        fmt::format("The power governor lowered the clock for {:.3g} us of unit busy time: the ceilings "
                    "include the power cap.",
                    report.throttled_s * 1e6));
  }
  notes.push_back(
      "Each point's rate is the better mean of runs of p and 2p passes (ERT keeps the best over its trial counts): "
      "launch latency excluded, the pipeline's fill and drain included.");
  return notes;
}

}  // namespace

ErtReport make_ert_report(const HardwareParams& hw, const DeviceRoof& device, const ErtPlan& plan,
                          const ErtRunResult& run, bool quick) {
  ErtReport report;
  report.device = hw.name;
  report.hardware_file = hw.file;
  report.dram_model = run.dram_model;
  report.quick = quick;
  report.complete = run.complete;
  report.measured_points = run.measured_points;
  report.main_memory = device.main_memory;
  report.request_bytes = plan.request_bytes;
  report.slots = plan.slots;
  report.types = plan.types;
  report.memory_type = plan.memory_type;
  report.bands = plan.bands;
  report.throttled_s = run.throttled_s;
  report.events = run.events;
  report.wall_s = run.wall_s;

  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const auto& point = plan.points[i];
    const auto& type = plan.types[point.type];
    const auto& measured = run.points[i];
    ErtPointReport out;
    out.index = i;
    out.purpose = point.purpose;
    out.engine = type.engine;
    out.dtype = type.dtype;
    out.band = point.band;
    out.working_set_bytes = point.working_set_bytes;
    out.flops_per_element = point.flops_per_element;
    out.passes = point.passes;
    out.warm_up = point.warm_up;
    out.intensity = point.intensity(type.dtype);
    out.measured = measured.measured;
    out.throttled = measured.throttled;
    out.short_run_s = measured.short_run_s;
    out.long_run_s = measured.long_run_s;
    out.pass_s = measured.pass_s;
    out.flops_per_s = measured.flops_per_s;
    out.bytes_per_s = measured.bytes_per_s;
    report.points.push_back(out);
  }

  for (const auto& band : plan.bands) {
    ErtCeiling ceiling;
    ceiling.kind = ErtCeilingKind::memory;
    ceiling.name = band.level;
    if (const auto* level = device.level(band.level)) ceiling.analytic = level->bandwidth_bytes_per_s;
    for (const auto& point : report.points) {
      if (!point.measured || point.band != band.level || !(point.bytes_per_s > ceiling.measured)) continue;
      ceiling.measured = point.bytes_per_s;
      ceiling.best_point = point.index;
    }
    ceiling.ratio = ratio_of(ceiling.measured, ceiling.analytic);
    report.memory_ceilings.push_back(ceiling);
  }
  for (std::size_t t = 0; t < plan.types.size(); ++t) {
    const auto& type = plan.types[t];
    ErtCeiling ceiling;
    ceiling.kind = ErtCeilingKind::compute;
    ceiling.name = type.label();
    ceiling.engine = type.engine;
    ceiling.dtype = type.dtype;
    ceiling.analytic = peak_flops_per_s(device, type.dtype, type.engine, device.nominal_clock_hz);
    for (const auto& point : report.points) {
      if (!point.measured || plan.points[point.index].type != t || !(point.flops_per_s > ceiling.measured)) continue;
      ceiling.measured = point.flops_per_s;
      ceiling.best_point = point.index;
    }
    ceiling.ratio = ratio_of(ceiling.measured, ceiling.analytic);
    report.compute_ceilings.push_back(ceiling);
  }
  report.notes = model_notes(hw, report);
  return report;
}

}  // namespace roofsim
