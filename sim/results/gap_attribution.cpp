#include "sim/results/gap_attribution.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace roofsim {

std::string ceiling_cause_for(const std::string& bound_by) {
  if (bound_by.rfind("compute", 0) == 0) return "compute";
  if (bound_by.rfind("memory", 0) == 0 || bound_by == "dram-rows") return "bandwidth_queueing";
  if (bound_by == "latency") return "latency";
  if (bound_by == "launch") return "launch";
  // The power-aware ceiling is a compute rate at the clock a cap allows: its time is the op's busy time at the
  // nominal clock ("compute") plus the slowdown the cap permits, taken next from "throttling" (attribute_gap), so
  // what stays in "throttling" is the time the op ran at a lower clock than the ceiling's best state.
  if (bound_by == "power") return "compute";
  // A cluster step's network ceiling is what its exposed communication measures.
  if (bound_by == "network") return "exposed_communication";
  return "compute";
}

GapAttribution attribute_gap(const GapInput& input) {
  GapAttribution out;
  out.sim_time_s = input.sim_time_s;
  out.ceiling_time_s = input.ceiling_time_s;
  out.gap_s = input.sim_time_s - input.ceiling_time_s;
  out.causes = input.causes;
  out.absorbed_by = ceiling_cause_for(input.bound_by);
  double measured = 0;
  for (const auto& cause : out.causes) measured += cause.seconds;
  // The ceiling time comes out of its resource's share first, then out of the other shares of a resident unit
  // (a bound op overlaps its loads with compute, so its work shows in all of them), then out of the rest.
  static constexpr std::array<const char*, 4> kResident = {"bandwidth_queueing", "latency", "compute", "launch"};
  std::vector<std::string> order = {out.absorbed_by};
  if (input.bound_by == "power") order.emplace_back("throttling");  // the slowdown the cap permits
  for (const char* name : kResident) {
    if (name != out.absorbed_by) order.emplace_back(name);
  }
  for (const auto& cause : out.causes) {
    if (std::find(order.begin(), order.end(), cause.name) == order.end()) order.push_back(cause.name);
  }
  double remaining = input.ceiling_time_s;
  for (const auto& name : order) {
    auto it = std::find_if(out.causes.begin(), out.causes.end(), [&](const GapCause& c) { return c.name == name; });
    if (it == out.causes.end() || remaining <= 0) continue;
    const double take = std::min(remaining, std::max(0.0, it->seconds));
    it->seconds -= take;
    remaining -= take;
  }
  // The op beat its ceiling (possible where the model is faster than the analytic line) by what is left.
  out.causes.push_back({"ahead_of_ceiling", -remaining});
  out.causes.push_back({"unattributed", input.sim_time_s - measured});
  const double reference_s = std::max(input.sim_time_s, input.ceiling_time_s);
  for (auto& cause : out.causes) cause.seconds = without_rounding_noise(cause.seconds, reference_s);
  out.gap_s = without_rounding_noise(out.gap_s, reference_s);
  return out;
}

double without_rounding_noise(double value, double reference) {
  return std::abs(value) <= kRoundingNoiseRelative * std::abs(reference) ? 0.0 : value;
}

}  // namespace roofsim
