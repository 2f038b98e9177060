// The bundled studies in sweeps/: each is a valid sweep with the points its axes promise, and each runs (in its
// analytic roofline mode, seconds instead of minutes) and draws both charts.
#include <doctest/doctest.h>

#include <toml++/toml.h>

#include <fstream>
#include <map>
#include <string>

#include "sim/sweep/sweep_spec.h"
#include "tests/cli/sweep_test_files.h"
#include "tests/support/chart_check.h"

using namespace roofsim;

namespace {

// Appends a sweep value to a TOML array as the file would give it: a whole number or a real where the text is one,
// else a string.
void push_value(toml::array& array, const std::string& text) {
  std::size_t used = 0;
  try {
    const long long whole = std::stoll(text, &used);
    if (used == text.size()) return void(array.push_back(whole));
    const double real = std::stod(text, &used);
    if (used == text.size()) return void(array.push_back(real));
  } catch (const std::exception&) {
  }
  array.push_back(text);
}

// A copy of a bundled study in `dir` whose every axis keeps only its first and last value (the extremes, where a
// point is likeliest to fail), with the files it names relative to sweeps/ made absolute. A study's charts and
// points are those of the whole grid's corners: the run stays a few seconds while every axis still varies.
std::filesystem::path corners_of(const std::filesystem::path& study, const SweepSpec& spec,
                                 const std::filesystem::path& dir) {
  toml::table file = toml::parse_file(study.string());
  const auto absolute = [&](const std::string& value) {
    const auto path = study.parent_path() / value;
    return std::filesystem::exists(path) ? path.string() : value;
  };
  if (auto* sweep = file["sweep"].as_table()) {
    for (const char* key : {"hardware", "workload", "model"}) {
      if (const auto value = (*sweep)[key].value<std::string>()) sweep->insert_or_assign(key, absolute(*value));
    }
  }
  auto* axes = file["axis"].as_array();
  REQUIRE(axes != nullptr);
  REQUIRE(axes->size() == spec.axes.size());
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    auto& axis = *axes->get(i)->as_table();
    const auto& values = spec.axes[i].values;
    const bool files = spec.axes[i].key == kHardwareAxisKey || spec.axes[i].key == kWorkloadAxisKey ||
                       spec.axes[i].key == kModelAxisKey;
    toml::array kept;
    for (const auto& value : {values.front(), values.back()}) {
      if (!kept.empty() && values.size() == 1) break;
      push_value(kept, files ? absolute(value) : value);
    }
    for (const char* key : {"values", "from", "to", "step", "factor"}) axis.erase(key);
    axis.insert_or_assign("values", kept);
  }
  const auto copy = dir / study.filename();
  std::ofstream(copy) << file << "\n";
  return copy;
}

}  // namespace

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
    const auto corners = corners_of(entry.path(), spec, test::scratch_dir("sweep-study-file-" + name));
    const auto corner_points = expand_points(load_sweep(corners)).size();
    CHECK(corner_points <= std::size_t{1} << spec.axes.size());
    const auto result =
        test::run_roofsim("sweep " + test::quoted(corners) + " --mode roofline --jobs 2 --out " + test::quoted(out));
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 0);
    const auto svg = test::read_file(out / "sweep.svg");
    // A plotted point per ok value in every panel: points x axes.
    std::size_t circles = 0;
    for (std::size_t at = svg.find("class=\"point\""); at != std::string::npos;
         at = svg.find("class=\"point\"", at + 1)) {
      ++circles;
    }
    CHECK(circles == corner_points * spec.axes.size());
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
