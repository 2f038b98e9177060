#pragma once
// The report's "design" object: the device's die area by part, its cost, its power budget (sim/design), and the cost
// per TFLOP/s of peak and, for a run, of what the run achieved. Absent for a device without [technology].
#include <cstdint>

#include <nlohmann/json.hpp>

#include "sim/config/hardware_params.h"
#include "sim/results/report_model.h"

namespace roofsim {

// For a run (a simulated total time), "design" also holds "cost_per_run": the device cost amortised over
// cost.service_life_years of continuous use, charged for the run's simulated time, and per token when the report
// knows the run's tokens (a --model run: report.extra["model"]).
void add_design_report(Report& report, const HardwareParams& hardware);

// The device cost per second of use: `device_usd` spread evenly over `service_life_years` of 365.25 days.
[[nodiscard]] double amortised_usd_per_s(double device_usd, double service_life_years);
// The tokens one run of a --model workload processes (report.json's "model"): prefill and train batch x seq, decode
// batch (one new token per sequence); 0 when the model object says neither.
[[nodiscard]] std::uint64_t tokens_per_run(const nlohmann::ordered_json& model);

}  // namespace roofsim
