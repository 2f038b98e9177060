// `roofsim run` on the bundled files: the decode step at batch 1 is bound by memory and the prefill
// GEMMs by compute or the L2; every op's gap causes add up to its gap, with a power cap too (throttling);
// trace.json is well-formed and, under a cap, carries power and clock counter tracks.
#include <doctest/doctest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/relative.h"
#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

nlohmann::json run_and_read(const std::string& hw, const std::string& workload, const std::string& file,
                            const std::string& extra = "") {
  // CTest runs the cases of this file in parallel, and two of them run the same workload: the folder is per process.
  const auto dir = test::scratch_dir("engine2-" + std::to_string(::getpid()) + "-" + workload + "-" + hw);
  const auto run =
      test::run_roofsim("run --hw " + test::config_path(hw + ".toml").string() + " --workload " +
                        test::workload_path(workload + ".toml").string() + " --out " + dir.string() + " " + extra);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  std::ifstream in(dir / file);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

bool memory_bound(const std::string& bound_by) {
  return bound_by.rfind("memory:dram", 0) == 0 || bound_by == "dram-rows" || bound_by == "latency";
}

}  // namespace

TEST_CASE("A decode step at batch 1 is bound by memory, a prefill GEMM at 2048 tokens by compute, the L2 or power") {
  const auto decode = run_and_read("H100-SXM5", "llama2_7b_decode", "report.json", "--set workload.params.layers=1");
  int checked = 0;
  for (const auto& op : decode["ops"]) {
    const std::string kind = op["kind"];
    if (kind != "gemm" && kind != "attention") continue;
    INFO(op["name"].get<std::string>() << " bound by " << op["bound_by"].get<std::string>());
    CHECK(memory_bound(op["bound_by"].get<std::string>()));
    ++checked;
  }
  CHECK(checked > 0);
  // 2048 tokens through a block of GPT-3's layout at a quarter of its width, to keep the test short.
  const auto prefill = run_and_read("H100-SXM5", "gpt3_175b_block_prefill", "report.json",
                                    "--set workload.params.hidden=4096 --set workload.params.heads=32");
  checked = 0;
  for (const auto& op : prefill["ops"]) {
    if (op["kind"] != "gemm") continue;
    const std::string bound_by = op["bound_by"];
    INFO(op["name"].get<std::string>() << " bound by " << bound_by);
    // Or the power cap: with the SMs' clock power a dense GEMM at the H100's 700 W TDP runs power-limited (the
    // simulated governor settles an 8192^3 bf16 GEMM at 1.755 GHz).
    CHECK((bound_by.rfind("compute", 0) == 0 || bound_by == "memory:l2" || bound_by == "power"));
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("Gap attribution: on every bundled workload on H100 the causes add up to the gap within 1 percent") {
  // The large workloads at smaller sizes (the same ops and layouts), to keep the test short.
  const std::vector<std::pair<std::string, std::string>> workloads = {
      {"gemm", "--set workload.params.size=1024"},
      {"stream", "--set workload.params.elements=4194304"},
      {"softmax_layernorm", ""},
      {"gpt3_175b_block_prefill",
       "--set workload.params.seq=256 --set workload.params.hidden=1536 --set workload.params.heads=12"},
      {"llama2_7b_decode", "--set workload.params.layers=1"},
      {"llama2_70b_decode", "--set workload.params.context=1024"},
      {"resnet50_conv", "--set workload.params.batch=4"},
      {"dp_training_step",
       "--set workload.params.batch=1 --set workload.params.seq=128 "
       "--set workload.params.hidden=1024 --set workload.params.ffn=4096"},
      {"collectives", ""},
      {"transformer_prefill_small", ""}};
  for (const auto& [workload, sets] : workloads) {
    const auto report = run_and_read("H100-SXM5", workload, "report.json", sets);
    for (const auto& op : report["ops"]) {
      if (!op.contains("gap")) continue;
      const auto& gap = op["gap"];
      double sum = 0;
      for (const auto& [name, seconds] : gap["causes_s"].items()) sum += seconds.get<double>();
      const double g = gap["gap_s"].get<double>();
      const double sim = gap["sim_time_s"].get<double>();
      INFO(workload << " " << op["name"].get<std::string>() << ": causes " << sum << " s, gap " << g << " s");
      CHECK(std::abs(sum - g) <= 0.01 * std::max(std::abs(g), 1e-3 * sim));
      CHECK(std::abs(sim + 0.0 - (gap["ceiling_time_s"].get<double>() + g)) <= 1e-9 * sim + 1e-18);
    }
  }
}

TEST_CASE("Gap attribution under a power cap: throttling is a cause, and the causes still add up to the gap") {
  // A prefill block at a cap well below its power: the governor lowers the clock, the compute-bound GEMMs lose time.
  const auto report =
      run_and_read("H100-SXM5", "gpt3_175b_block_prefill", "report.json",
                   "--set workload.params.seq=512 --set workload.params.hidden=2048 --set workload.params.heads=16 "
                   "--set power.cap=250W");
  double throttled = 0;
  for (const auto& op : report["ops"]) {
    if (!op.contains("gap")) continue;
    const auto& gap = op["gap"];
    double sum = 0;
    for (const auto& [name, seconds] : gap["causes_s"].items()) sum += seconds.get<double>();
    const double g = gap["gap_s"].get<double>();
    const double sim = gap["sim_time_s"].get<double>();
    INFO(op["name"].get<std::string>() << " bound by " << op["bound_by"].get<std::string>() << ": causes " << sum
                                       << " s, gap " << g << " s");
    CHECK(std::abs(sum - g) <= 0.01 * std::max(std::abs(g), 1e-3 * sim));
    if (gap["causes_s"].contains("throttling")) {
      CHECK(gap["causes_s"]["throttling"].get<double>() >= 0);
      throttled += gap["causes_s"]["throttling"].get<double>();
    }
    // Throttling is measured on busy time below the nominal clock: an op that never ran below it has none.
    if (op["power"]["throttled_s"].get<double>() == 0) CHECK_FALSE(gap["causes_s"].contains("throttling"));
    if (op["bound_by"] == "power") CHECK(gap["ceiling_taken_from"] == "compute");
  }
  CHECK(report["power"]["clock_changes"].get<int>() > 0);
  CHECK(throttled > 0);
}

TEST_CASE("trace.json parses, its spans carry ph ts pid tid, B and E balance, counters are non-negative") {
  for (const char* bound : {"20000", "50"}) {
    const auto trace =
        run_and_read("H100-SXM5", "transformer_prefill_small", "trace.json", std::string("--trace-tiles ") + bound);
    REQUIRE(trace.contains("traceEvents"));
    std::map<std::pair<int, int>, int> depth;
    std::size_t tiles = 0, counters = 0, flows = 0;
    for (const auto& event : trace["traceEvents"]) {
      REQUIRE(event.contains("ph"));
      CHECK(event.contains("ts"));
      CHECK(event.contains("pid"));
      CHECK(event.contains("tid"));
      const std::string ph = event["ph"];
      const auto key = std::make_pair(event["pid"].get<int>(), event["tid"].get<int>());
      if (ph == "B") ++depth[key];
      if (ph == "E") {
        --depth[key];
        CHECK(depth[key] >= 0);
      }
      if (ph == "X") {
        ++tiles;
        CHECK(event["dur"].get<double>() >= 0);
      }
      if (ph == "C") {
        ++counters;
        for (const auto& [name, value] : event["args"].items()) CHECK(value.get<double>() >= 0);
      }
      if (ph == "s" || ph == "f") ++flows;
    }
    for (const auto& [track, d] : depth) CHECK(d == 0);
    CHECK(tiles > 0);
    CHECK(counters > 0);
    CHECK(flows > 0);
    const auto& meta = trace["otherData"];
    CHECK(meta["tile_events"].get<std::uint64_t>() == tiles);
    if (std::string(bound) == "50") {
      CHECK(meta["tiles_per_event"].get<std::uint64_t>() > 1);
      CHECK(tiles <= 2 * 50);  // bounded (up to one partial aggregate per track and op beyond the bound)
      CHECK(meta["units_sampled_every"].get<std::uint64_t>() > 1);
      // Said in the viewer too: a process label.
      const auto& events = trace["traceEvents"];
      CHECK(std::any_of(events.begin(), events.end(), [](const nlohmann::json& e) {
        return e["ph"] == "M" && e["name"] == "process_labels" &&
               e["args"]["labels"].get<std::string>().find("aggregated") != std::string::npos;
      }));
    }
  }
}

TEST_CASE("trace.json under a power cap: Chrome trace events only, and power and clock counter tracks that add up") {
  const auto dir = test::scratch_dir("engine2-trace-capped");
  const auto run = test::run_roofsim("run --hw " + test::config_path("H100-SXM5.toml").string() + " --workload " +
                                     test::workload_path("transformer_prefill_small.toml").string() + " --out " +
                                     dir.string() + " --set power.cap=200W");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  std::ifstream trace_in(dir / "trace.json");
  std::ifstream report_in(dir / "report.json");
  REQUIRE(trace_in);
  REQUIRE(report_in);
  const auto trace = nlohmann::json::parse(trace_in);
  const auto report = nlohmann::json::parse(report_in);
  // The Trace Event Format's phases this writer uses, and what each must carry to be drawn.
  const std::vector<std::string> phases = {"B", "E", "X", "C", "s", "f", "M"};
  std::map<std::string, std::vector<std::pair<double, double>>> counters;  // "name arg" -> (ts us, value)
  for (const auto& event : trace["traceEvents"]) {
    REQUIRE(event.contains("name"));
    const std::string ph = event["ph"];
    CHECK(std::find(phases.begin(), phases.end(), ph) != phases.end());
    CHECK(event["ts"].is_number());
    CHECK(event["pid"].is_number_integer());
    CHECK(event["tid"].is_number_integer());
    if (ph == "X") CHECK(event["dur"].is_number());
    if (ph == "s" || ph == "f") CHECK(event.contains("id"));
    if (ph == "M") CHECK(event["args"].is_object());
    if (ph == "C") {
      for (const auto& [key, value] : event["args"].items()) {
        counters[event["name"].get<std::string>() + " " + key].emplace_back(event["ts"].get<double>(),
                                                                            value.get<double>());
      }
    }
  }
  // The compute clock: only DVFS states of the H100 file (0.99 to 1.98 GHz, 15 MHz apart), and below the fastest one
  // at some point.
  const auto& clock = counters["compute clock GHz"];
  REQUIRE(!clock.empty());
  double slowest = 2;
  for (const auto& [ts, ghz] : clock) {
    const double steps = (ghz - 0.99) / 0.015;
    CHECK(std::abs(steps - std::round(steps)) < 1e-6);
    CHECK(ghz >= 0.99 - 1e-9);
    CHECK(ghz <= 1.98 + 1e-9);
    slowest = std::min(slowest, ghz);
  }
  CHECK(slowest < 1.98);
  // The power track (its name carries the cap) integrates to the run's energy; its parts add up to it.
  const auto& power = counters["power (cap 200 W) W"];
  REQUIRE(power.size() >= 2);
  double energy_j = 0;
  for (std::size_t i = 0; i + 1 < power.size(); ++i) {
    CHECK(power[i].second >= 0);
    energy_j += power[i].second * (power[i + 1].first - power[i].first) * 1e-6;
  }
  CHECK(power.back().second == 0.0);
  CHECK(test::within(energy_j, report["power"]["energy_j"].get<double>(), 1e-6));
  const auto& dynamic = counters["power: compute dynamic W"];
  const auto& memory = counters["power: DRAM and links dynamic W"];
  const auto& leakage = counters["power: static W"];
  REQUIRE(dynamic.size() == power.size());
  REQUIRE(memory.size() == power.size());
  REQUIRE(leakage.size() == power.size());
  for (std::size_t i = 0; i < power.size(); ++i) {
    CHECK(std::abs(dynamic[i].second + memory[i].second + leakage[i].second - power[i].second) <=
          1e-9 * power[i].second + 1e-12);
  }
  CHECK(trace["otherData"]["counters"].get<std::string>().find("power") != std::string::npos);
}
