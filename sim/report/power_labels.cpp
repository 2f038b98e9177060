#include "sim/report/power_labels.h"

#include <algorithm>

#include "sim/config/quantity.h"

namespace roofsim {

namespace {

// The op's busy-weighted clock when throttling cost it time, else 0.
double throttled_clock_hz(const OpReport& op) {
  const auto found = op.extra.find("power");
  if (found == op.extra.end() || !found->is_object()) return 0;
  const auto& power = *found;
  if (!power.contains("throttling_loss_s") || !power.contains("busy_clock_hz")) return 0;
  return power["throttling_loss_s"].get<double>() > 0 ? power["busy_clock_hz"].get<double>() : 0.0;
}

}  // namespace

std::string op_chart_label(const OpReport& op) {
  const double clock_hz = throttled_clock_hz(op);
  return clock_hz > 0 ? op.name + " @" + format_si(clock_hz, "Hz") : op.name;
}

bool any_throttled(const Report& report) {
  return std::any_of(report.ops.begin(), report.ops.end(),
                     [](const OpReport& op) { return throttled_clock_hz(op) > 0; });
}

std::string throttled_label_note() {
  return "name @clock: a power cap throttled the op; the clock is its engines' mean over their busy time.";
}

}  // namespace roofsim
