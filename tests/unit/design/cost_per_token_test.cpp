// A run's cost per token: the device cost spread over its service life, charged for the simulated time, per token of
// a --model run; closed forms.
#include <doctest/doctest.h>

#include "sim/config/hardware_params.h"
#include "sim/results/design_report.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

TEST_CASE("amortised cost: USD over years of 365.25 days, per second") {
  // 365.25 x 86400 = 31,557,600 s in a year.
  CHECK(amortised_usd_per_s(31557600, 1) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(amortised_usd_per_s(31557600, 5) == doctest::Approx(0.2).epsilon(1e-12));
  // 25,000 USD over 5 years: 25000 / 157,788,000 s = 1.58441e-4 USD/s = 0.570386 USD per hour.
  CHECK(amortised_usd_per_s(25000, 5) * 3600 == doctest::Approx(0.570386).epsilon(1e-6));
}

TEST_CASE("tokens per run: prefill batch x seq, decode batch, none without a phase") {
  CHECK(tokens_per_run({{"phase", "prefill"}, {"batch_sequences", 4}, {"seq_tokens", 512}}) == 2048);
  CHECK(tokens_per_run({{"phase", "train"}, {"batch_sequences", 2}, {"seq_tokens", 4096}}) == 8192);
  CHECK(tokens_per_run({{"phase", "decode"}, {"batch_sequences", 16}, {"seq_tokens", 2048}}) == 16);
  CHECK(tokens_per_run({{"name", "x"}}) == 0);
}

TEST_CASE("a decode run of 1 ms at batch 16 on the H100 file: its cost per run and per million tokens") {
  auto hardware = load_hardware(test::config_path("H100-SXM5.toml"));
  hardware.design.cost.service_life_years = 4;
  Report report;
  report.command = "run";
  report.total_sim_time_s = 1e-3;
  report.extra["model"] = {{"phase", "decode"}, {"batch_sequences", 16}, {"seq_tokens", 2048}};
  add_design_report(report, hardware);
  const auto& design = report.extra["design"];
  const double device_usd = design["cost"]["total_usd"].get<double>();
  REQUIRE(device_usd > 0);
  const auto& per_run = design["cost_per_run"];
  // 4 years = 126,230,400 s; 1 ms of it; 16 tokens.
  const double usd_per_run = device_usd * 1e-3 / 126230400.0;
  CHECK(per_run["service_life_years"].get<double>() == 4);
  CHECK(per_run["usd_per_run"].get<double>() == doctest::Approx(usd_per_run).epsilon(1e-12));
  CHECK(per_run["usd_per_device_hour"].get<double>() == doctest::Approx(device_usd * 3600 / 126230400.0));
  CHECK(per_run["tokens_per_run"].get<std::uint64_t>() == 16);
  CHECK(per_run["usd_per_million_tokens"].get<double>() == doctest::Approx(usd_per_run / 16 * 1e6).epsilon(1e-12));
}

TEST_CASE("a workload without a token count: cost per run, no cost per token") {
  const auto hardware = load_hardware(test::config_path("H100-SXM5.toml"));
  Report report;
  report.command = "run";
  report.total_sim_time_s = 2e-3;
  add_design_report(report, hardware);
  const auto& per_run = report.extra["design"]["cost_per_run"];
  CHECK(per_run["usd_per_run"].get<double>() > 0);
  CHECK(per_run["tokens_per_run"].is_null());
  CHECK(per_run["usd_per_million_tokens"].is_null());
}
