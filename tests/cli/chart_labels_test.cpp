// Every bundled scenario's charts parsed back (tests/support/chart_check.h): no two texts overlap, no label lies over
// a line or an op marker it does not belong to, and each ceiling label lies on its own line. Sweeps are checked in
// sweep_bundled_studies_test.cpp, where their charts are drawn.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/support/chart_check.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

void check_chart(const std::filesystem::path& file) {
  const auto svg = test::read_file(file);
  REQUIRE_MESSAGE(!svg.empty(), file);
  const auto problems = test::chart_label_problems(svg);
  INFO(file);
  for (const auto& problem : problems) CHECK_MESSAGE(false, problem);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

}  // namespace

TEST_CASE("roofline and energy charts of every bundled workload on H100 pass the label checks") {
  std::size_t workloads = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "workloads")) {
    if (entry.path().extension() != ".toml") continue;
    ++workloads;
    const auto name = entry.path().stem().string();
    const auto out = test::scratch_dir("chart-labels-" + name);
    const auto result =
        test::run_roofsim("roofline --hw H100-SXM5 --workload " + quoted(entry.path()) + " --out " + quoted(out));
    INFO(name << ": " << result.err);
    REQUIRE(result.exit_code == 0);
    check_chart(out / "roofline.svg");
    check_chart(out / "energy.svg");
  }
  CHECK(workloads >= 10);
}

TEST_CASE("llama2_7b_decode run on H100: every roof is labelled on its own line, 989 TFLOP/s included") {
  const auto out = test::scratch_dir("chart-labels-llama-run");
  const auto result = test::run_roofsim(
      "run --hw H100-SXM5 --workload llama2_7b_decode --set workload.params.layers=1 --out " + quoted(out));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  check_chart(out / "roofline.svg");
  check_chart(out / "energy.svg");
  const auto svg = test::read_file(out / "roofline.svg");
  CHECK(count(svg, "<text class=\"compute-label\"") == count(svg, "<line class=\"compute\""));
  CHECK(svg.find("989 TFLOP/s</text>") != std::string::npos);
  // Ridge points carry their unit.
  for (const auto& text : test::chart_texts(svg)) {
    if (text.attributes.count("class") && text.attributes.at("class") == "ridge-label") {
      CHECK(text.content.find("FLOP/B") != std::string::npos);
    }
  }
}

TEST_CASE("a cluster run: the charts pass the label checks and every energy legend entry names its engine") {
  const auto out = test::scratch_dir("chart-labels-cluster");
  const auto result = test::run_roofsim("run --hw 8xH100-NVSwitch --workload tp_decode --out " + quoted(out));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  check_chart(out / "roofline.svg");
  check_chart(out / "energy.svg");
  // The energy chart's points are the ops: the rank's whole-step row is none of them.
  const auto energy = test::read_file(out / "energy.svg");
  CHECK(count(energy, "<circle class=\"op\"") > 0);
  CHECK(energy.find("data-op=\"step (rank") == std::string::npos);
  for (const auto* file : {"roofline.svg", "energy.svg"}) {
    for (const auto& text : test::chart_texts(test::read_file(out / file))) {
      if (!text.attributes.count("class") || text.attributes.at("class") != "legend-text") continue;
      INFO(file << ": " << text.content);
      CHECK(text.content.rfind("fp", 0) != 0);
      CHECK(text.content.rfind("bf", 0) != 0);
      CHECK(text.content.find("( ") == std::string::npos);
      CHECK(text.content.find(", fp") == std::string::npos);
    }
  }
}

TEST_CASE("the ERT chart passes the label checks") {
  const auto out = test::scratch_dir("chart-labels-ert");
  const auto result = test::run_roofsim(
      "ert --hw H100-SXM5 --quick --set dram.model=simple --set compute.units=8 "
      "--max-working-set 64MiB --out " +
      quoted(out));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  check_chart(out / "ert.svg");
}
