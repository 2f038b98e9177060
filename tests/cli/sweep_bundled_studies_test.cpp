// The bundled studies in sweeps/: each is a valid sweep with the points its axes promise, and each runs (in its
// analytic roofline mode, seconds instead of minutes) and draws both charts.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "sim/sweep/sweep_spec.h"
#include "tests/cli/sweep_test_files.h"
#include "tests/support/chart_check.h"

using namespace roofsim;

TEST_CASE("every bundled study expands to the points of its axes and runs with both charts drawn") {
  // Points from the axes: batch 1..2048 x2 (12); N 256..24576 +256 (96); 4 L2 capacities x 5 pin rates; 2 batches x
  // caps 250..700 W +50 (10); 2 devices x 2 masks x 2 schedules x 3 head dims x sequence 1k..16k x2 (5); 3 batches x
  // 6 SM counts; 4 SM counts; 3 batches x 5 SM counts; 2 batches x 5 devices; 3 models.
  const std::map<std::string, std::size_t> expected = {
      {"attention_engines", 120},       {"gemm_batch_ridge", 12},         {"gemm_wave_sawtooth", 96},
      {"llm_decode_sram_hbm", 20},      {"model_decode_step", 3},         {"power_cap", 20},
      {"sram_hbm_iso_area_decode", 18}, {"sram_hbm_iso_area_prefill", 4}, {"sram_hbm_iso_area_stacks", 15},
      {"sram_lpu_vs_hbm_decode", 10}};
  std::size_t found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "sweeps")) {
    if (entry.path().extension() != ".toml") continue;
    const auto name = entry.path().stem().string();
    INFO("study " << name);
    REQUIRE(expected.count(name) == 1);
    ++found;
    const auto spec = load_sweep(entry.path());
    CHECK(spec.mode == "run");
    CHECK(expand_points(spec).size() == expected.at(name));

    const auto out = test::scratch_dir("sweep-study-" + name);
    const auto result = test::run_roofsim("sweep " + name + " --mode roofline --jobs 2 --out " + test::quoted(out));
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 0);
    const auto svg = test::read_file(out / "sweep.svg");
    // A plotted point per ok value in every panel: points x axes.
    std::size_t circles = 0;
    for (std::size_t at = svg.find("class=\"point\""); at != std::string::npos;
         at = svg.find("class=\"point\"", at + 1)) {
      ++circles;
    }
    CHECK(circles == expected.at(name) * spec.axes.size());
    CHECK(test::read_file(out / "sweep_roofline.svg").find("class=\"op\"") != std::string::npos);
    // Both charts pass the label checks (tests/support/chart_check.h).
    for (const char* chart : {"sweep.svg", "sweep_roofline.svg"}) {
      for (const auto& problem : test::chart_label_problems(test::read_file(out / chart))) {
        CHECK_MESSAGE(false, chart << ": " << problem);
      }
    }
  }
  CHECK(found == expected.size());
}
