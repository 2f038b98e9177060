// Memoized op execution against --exact: a 4-layer transformer (prefill and decode), a 7-layer decode with the detailed
// DRAM and a 4-stage pipeline run both ways; the replayed run keeps the total time within 0.5%, each op's time within
// 2%, each op's bytes at every level within 1% and the energy within 1%, and it did replay ops; GEMMs replayed
// while the governor re-clocks them keep --exact's clock and energy.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"

using namespace roofsim;

namespace {

double relative(double a, double b) {
  return b == 0 ? (a == 0 ? 0.0 : 1.0) : std::abs(a - b) / std::abs(b);
}

nlohmann::json report(const std::string& dir) {
  auto json = nlohmann::json::parse(test::read_file(std::filesystem::path(dir) / "report.json"));
  // A cluster run's report: its first simulated rank.
  if (!json.contains("ops") && json.contains("ranks")) return json["ranks"][0];
  return json;
}

// `replays`: the memoized run replays ops (a workload whose ops all differ replays none). Returns --exact's report.
nlohmann::json compare_with_exact(const std::string& name, const std::string& args, bool replays = true) {
  const auto dir = test::scratch_dir("memo-" + name);
  const auto memo = test::run_roofsim(args + " --out " + (dir / "memo").string());
  INFO("stderr: " << memo.err);
  REQUIRE(memo.exit_code == 0);
  // A single-device run says "memoized: R of N ops replayed", a cluster run "memoized: R ops replayed".
  if (replays) {
    CHECK(memo.err.find("memoized: ") != std::string::npos);
    CHECK(memo.err.find("memoized: 0 ") == std::string::npos);
  }
  const auto exact = test::run_roofsim(args + " --exact --quiet --out " + (dir / "exact").string());
  REQUIRE(exact.exit_code == 0);
  CHECK(exact.err.find("memoized") == std::string::npos);
  const auto m = report((dir / "memo").string());
  const auto e = report((dir / "exact").string());
  CHECK(relative(m["total"]["sim_time_s"].get<double>(), e["total"]["sim_time_s"].get<double>()) < 0.005);
  REQUIRE(m["ops"].size() == e["ops"].size());
  for (std::size_t i = 0; i < e["ops"].size(); ++i) {
    const auto& mo = m["ops"][i];
    const auto& eo = e["ops"][i];
    if (eo["sim_time_s"].is_null() || !eo.value("simulated", true)) continue;
    INFO("op " << eo["name"].get<std::string>());
    CHECK(relative(mo["sim_time_s"].get<double>(), eo["sim_time_s"].get<double>()) < 0.02);
    for (const auto& [level, bytes] : eo["bytes"].items()) {
      CHECK(relative(mo["bytes"][level].get<double>(), bytes.get<double>()) < 0.01);
    }
  }
  if (e.contains("power") && e["power"].contains("energy_j")) {
    CHECK(relative(m["power"]["energy_j"].get<double>(), e["power"]["energy_j"].get<double>()) < 0.01);
  }
  // A cluster run: every simulated rank's compute ops (report.json holds the first rank's), where the ranks of other
  // pipeline stages replay what one stage recorded.
  const auto cluster = dir / "memo" / "cluster.json";
  if (!std::filesystem::exists(cluster)) return e;
  const auto mc = nlohmann::json::parse(test::read_file(cluster));
  const auto ec = nlohmann::json::parse(test::read_file(dir / "exact" / "cluster.json"));
  REQUIRE(mc["simulated_ranks"].size() == ec["simulated_ranks"].size());
  for (std::size_t r = 0; r < ec["simulated_ranks"].size(); ++r) {
    const auto& mops = mc["simulated_ranks"][r]["ops"];
    const auto& eops = ec["simulated_ranks"][r]["ops"];
    REQUIRE(mops.size() == eops.size());
    for (std::size_t i = 0; i < eops.size(); ++i) {
      if (eops[i]["network"].get<bool>()) continue;
      INFO("rank " << ec["simulated_ranks"][r]["rank"] << " op " << eops[i]["name"].get<std::string>());
      const auto span = [](const nlohmann::json& op) {
        return op["end_s"].get<double>() - op["launch_s"].get<double>();
      };
      CHECK(relative(span(mops[i]), span(eops[i])) < 0.02);
    }
  }
  return e;
}

// A workload run memoized (it must replay ops) and --exact: their reports.
struct BothWays {
  nlohmann::json memo, exact;
};
BothWays run_both_ways(const std::string& name, const std::string& args) {
  const auto dir = test::scratch_dir("memo-" + name);
  const auto memo = test::run_roofsim(args + " --verbose --out " + (dir / "memo").string());
  INFO("stderr: " << memo.err);
  REQUIRE(memo.exit_code == 0);
  CHECK(memo.err.find("memoized: 0 ") == std::string::npos);
  const auto exact = test::run_roofsim(args + " --exact --quiet --out " + (dir / "exact").string());
  REQUIRE(exact.exit_code == 0);
  BothWays both{report((dir / "memo").string()), report((dir / "exact").string())};
  REQUIRE(both.memo["ops"].size() == both.exact["ops"].size());
  CHECK(relative(both.memo["power"]["energy_j"].get<double>(), both.exact["power"]["energy_j"].get<double>()) < 0.01);
  return both;
}

// Checks `value` of each op whose name holds every one of `parts` within `bound` of --exact's; returns how many.
template <typename Value>
int check_ops(const BothWays& both, std::initializer_list<const char*> parts, Value value, double bound) {
  int checked = 0;
  for (std::size_t i = 0; i < both.exact["ops"].size(); ++i) {
    const auto name = both.exact["ops"][i]["name"].get<std::string>();
    if (!std::all_of(parts.begin(), parts.end(), [&](const char* p) { return name.find(p) != std::string::npos; })) {
      continue;
    }
    ++checked;
    INFO("op " << name);
    CHECK(relative(value(both.memo["ops"][i]), value(both.exact["ops"][i])) < bound);
  }
  return checked;
}

}  // namespace

TEST_CASE("a 4-layer transformer prefill replayed from its memoized ops stays within the bounds of --exact") {
  compare_with_exact("prefill",
                     "run --hw H100-SXM5 --workload transformer_prefill_small --set workload.params.layers=4 "
                     "--set dram.model=simple");
}

TEST_CASE("a 4-layer transformer prefill under a power cap, memoized, stays within the bounds of --exact") {
  // At 300 W the governor re-clocks the GEMMs of every layer (12 clock changes with --exact), so no two layers launch
  // an op at the same clock. The signature leaves the clock out: a replay runs at the clock the live governor
  // applies, its time following it as the record's split of compute and memory stall says, and its counters spent
  // along the record's power profile (op_replay.h), so later layers replay the earlier ones' ops.
  compare_with_exact("transformer-prefill-capped",
                     "run --hw H100-SXM5 --workload transformer_prefill_small --set workload.params.layers=4 "
                     "--set dram.model=simple --set power.cap=300W");
}

TEST_CASE("a 4-layer transformer decode step replayed from its memoized ops stays within the bounds of --exact") {
  compare_with_exact("decode",
                     "run --hw H100-SXM5 --workload llama2_7b_decode --set workload.params.layers=4 "
                     "--set dram.model=simple");
}

TEST_CASE("a 4-stage pipeline whose ranks share memoized ops stays within the bounds of --exact") {
  // Every stage's ops are compared (compare_with_exact reads cluster.json), not only the first stage's, which records
  // what the later stages replay.
  // Stages of the bundled pipeline at a quarter of its widths and sequence and half its micro-batches: the ops keep
  // their kinds and tiling (GEMMs of several waves, a stream op, sends and receives), and the stages still share
  // recorded ops. At a fixed clock (no cap), so that what it checks is the sharing across ranks alone (the capped
  // prefill above checks replays at the clock the governor applies).
  compare_with_exact("pipeline",
                     "run --hw 8xH100-NVSwitch --workload pp_forward --set cluster.devices=4 --set dram.model=simple "
                     "--set workload.params.seq=512 --set workload.params.hidden=1024 --set workload.params.ffn=4096 "
                     "--set workload.params.micro_batches=4 --set power.cap=0W");
}

TEST_CASE("a 4-stage pipeline with the detailed DRAM shares ops across stages within the bounds of --exact") {
  // The later stages replay what an earlier one recorded although their DRAM state at launch differs (the refresh
  // phase and the open rows follow each stage's own timeline): what a stage finds there must stay in the bounds.
  compare_with_exact("pipeline-detailed",
                     "run --hw 8xH100-NVSwitch --workload pp_forward --set cluster.devices=4 --set dram.model=detailed "
                     "--set workload.params.seq=512 --set workload.params.hidden=1024 --set workload.params.ffn=4096 "
                     "--set workload.params.micro_batches=4 --set power.cap=0W");
}

TEST_CASE("a 4-stage pipeline under a power cap shares memoized ops across ranks within the bounds of --exact") {
  // The stages above at 300 W: the governor moves each rank's clock (18 changes with --exact), so a rank replays an
  // op recorded at another clock, on another rank, at the clock its own governor applies.
  compare_with_exact("pipeline-capped",
                     "run --hw 8xH100-NVSwitch --workload pp_forward --set cluster.devices=4 --set dram.model=simple "
                     "--set workload.params.seq=512 --set workload.params.hidden=1024 --set workload.params.ffn=4096 "
                     "--set workload.params.micro_batches=4 --set power.cap=300W");
}

// Runs `args` (fast-forward is on by default), whose stderr line of counts must show whole waves skipped or not
// (`whole_waves`) and steps inside tiles skipped or not (`inside_tiles`), then compares it with --exact.
void check_fast_forward(const std::string& name, const std::string& args, bool whole_waves, bool inside_tiles,
                        bool replays) {
  const auto dir = test::scratch_dir("memo-" + name + "-counts");
  const auto run = test::run_roofsim(args + " --out " + (dir / "memo").string());
  INFO("stderr: " << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK((run.err.find("fast-forwarded (0 waves skipped") == std::string::npos) == whole_waves);
  CHECK((run.err.find(" 0 steps inside tiles") == std::string::npos) == inside_tiles);
  compare_with_exact(name, args, replays);
}

// The arguments of a run of one of GPT-3 175B's GEMMs over 2048 tokens (2048 x `n` x 12288, fp16) on H100 at its
// 700 W cap, whose workload file is written into `dir`.
std::string capped_gpt3_gemm(const std::filesystem::path& dir, const std::string& name, int n) {
  const auto workload = dir / (name + ".toml");
  std::ofstream out(workload);
  out << "[workload]\nname = \"" << name << "\"\ndescription = \"a GEMM of GPT-3 175B over 2048 tokens\"\n\n"
      << "[[op]]\nname = \"" << name << "\"\nkind = \"gemm\"\nm = 2048\nn = " << n << "\nk = 12288\ndtype = \"fp16\"\n";
  return "run --hw H100-SXM5 --workload " + workload.string();
}

TEST_CASE("a GEMM of 8 waves fast-forwarded over its steady waves stays within the bounds of --exact") {
  // Without a power cap: the governor then keeps the top clock both ways (wave_fast_forward.h). 2048 tiles of
  // 128x256 on 132 units x 2 slots, run in lockstep: each full wave skips steps inside its tiles once three step
  // boundaries agree. Waves of skipped steps repeat as whole periods from the fourth wave boundary after the first
  // skip on, which leaves this GEMM's 7 full waves no more than the two kept: no whole wave is skipped.
  check_fast_forward("fast-forward", "run --hw H100-SXM5 --workload gemm --set dram.model=simple --set power.tdp=5000W",
                     false, true, false);
}

TEST_CASE("--no-fast-forward keeps memoization alone: the GEMM above skips no wave and no step") {
  const auto dir = test::scratch_dir("memo-no-fast-forward");
  const auto run = test::run_roofsim(
      "run --hw H100-SXM5 --workload gemm --set dram.model=simple --set power.tdp=5000W --no-fast-forward --verbose "
      "--out " +
      (dir / "memo").string());
  INFO("stderr: " << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("fast-forwarded (0 waves skipped") != std::string::npos);
  CHECK(run.err.find(" 0 steps inside tiles") != std::string::npos);
}

TEST_CASE("a GPT-3 block on V100 fast-forwarded inside its GEMMs' tiles reads from DRAM what --exact reads") {
  // V100's 6 MB L2: an op's first windows inside tiles miss at another rate than the steps after them while the
  // first wave's operands fill it. Skipped at the window's rate, mlp.down read 3.9% less from DRAM than --exact (bytes
  // per level 1.4% over the block); the touched steps now show it and those skips are withdrawn.
  check_fast_forward("v100-block", "run --hw V100-SXM2 --workload gpt3_175b_block_prefill", false, true, false);
}

TEST_CASE("a capped GEMM fast-forwarded through the governor's climbs stays within the bounds of --exact") {
  // GPT-3's QKV projection on H100 at its 700 W cap: the clock dips one state as each wave's tiles start and climbs
  // back some 50 us later. Once the state above was seen steady and measured in a skip, a skip at the state below
  // runs through the climb: the steps before it at this state's rates, those after it at the state above's.
  const auto dir = test::scratch_dir("through-climb-counts");
  const std::string args = capped_gpt3_gemm(dir, "qkv", 36864);
  const auto run = test::run_roofsim(args + " --out " + (dir / "memo").string());
  INFO("stderr: " << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find(" 0 skips through a clock change") == std::string::npos);
  CHECK(run.err.find(" skips through a clock change") != std::string::npos);
  compare_with_exact("through-climb", args, false);
}

TEST_CASE("a capped GEMM whose waves dip and climb alike skips whole waves, with their clock's course") {
  // GPT-3's MLP up-projection on H100 at its 700 W cap: 3072 tiles, 11 full waves. Each wave skips steps inside its
  // tiles, through the clock's dip and climb; from the fourth wave boundary after the first skip the waves repeat as
  // whole periods, and the waves up to the two kept are skipped with the course of the clock over a period.
  const auto dir = test::scratch_dir("period-skip");
  const std::string args = capped_gpt3_gemm(dir, "up", 49152);
  const auto run = test::run_roofsim(args + " --out " + (dir / "memo").string());
  INFO("stderr: " << run.err);
  REQUIRE(run.exit_code == 0);
  std::smatch waves;
  REQUIRE(std::regex_search(run.err, waves, std::regex(R"(\((\d+) waves skipped)")));
  CHECK(std::stoi(waves[1].str()) >= 3);
  const auto exact = compare_with_exact("period-skip", args, false);
  const auto memo = report((dir / "memo").string());
  const auto& op = memo["ops"][0];
  // The hold ran the period's course: the op's time splits over both states of the dip as --exact's does, within
  // a tenth of the op.
  double at_states = 0;
  for (const auto& at : op["power"]["time_at_clock_s"]) at_states += at["time_s"].get<double>();
  CHECK(at_states == doctest::Approx(op["sim_time_s"].get<double>()).epsilon(1e-6));
  const auto time_at = [](const nlohmann::json& o, double hz) {
    for (const auto& at : o["power"]["time_at_clock_s"]) {
      if (std::abs(at["clock_hz"].get<double>() - hz) < 1e3) return at["time_s"].get<double>();
    }
    return 0.0;
  };
  for (const double hz : {1.77e9, 1.785e9}) {
    INFO("clock " << hz);
    CHECK(std::abs(time_at(op, hz) - time_at(exact["ops"][0], hz)) < 0.1 * op["sim_time_s"].get<double>());
  }
  // Every tile has one span on the trace, the skipped ones copied from the period, inside the op.
  const auto trace = nlohmann::json::parse(test::read_file(dir / "memo" / "trace.json"));
  std::size_t spans = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X" || event.value("cat", "") != "tile") continue;
    ++spans;
    CHECK(event["ts"].get<double>() + event["dur"].get<double>() <= op["end_s"].get<double>() * 1e6 + 1e-3);
  }
  CHECK(spans == op["tiles"].get<std::size_t>());
}

TEST_CASE("a GPT-3 block fast-forwarded under a power cap with per-bank refresh draws at most what the device can") {
  // The skipped steps' per-bank refreshes are paced over the hold as the power domain reads them; divided into
  // all-bank equivalents and then rounded, the paced share once exceeded the count by one, the DRAM's reading went
  // down, and the governor's sample after the skip read 8.6e18 W, which the op's record then kept as its power
  // profile: its replays spent their energy at the end and ran unthrottled (GPT-3 175B mlp.up, +27% energy).
  const auto dir = test::scratch_dir("memo-ff-power");
  const auto run = test::run_roofsim(
      "run --hw H100-SXM5 --workload gpt3_175b_block_prefill --set dram.model=detailed "
      "--out " +
      dir.string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto trace = nlohmann::json::parse(test::read_file(dir / "trace.json"));
  double samples = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "C" || event["name"].get<std::string>().rfind("power", 0) != 0) continue;
    for (const auto& [key, watts] : event["args"].items()) {
      INFO(event["name"].get<std::string>() << " at " << event["ts"].get<double>() << " us");
      CHECK(watts.get<double>() < 2 * 700.0);
      ++samples;
    }
  }
  CHECK(samples > 100);
  CHECK(run.err.find(" 0 steps inside tiles") == std::string::npos);
}

TEST_CASE("a decode step's GEMVs fast-forwarded over whole waves leave the caches as --exact does") {
  // TPU-v4's GEMVs run hundreds of one-step waves; whole waves are skipped, and the skipped tiles' reads and writes
  // pass through the cache tags. The tiles skipped are the boundary's and those after it: the next op (mlp.act)
  // finds the GEMV's output in CMEM, and the GEMV's last simulated tiles read their weights from DRAM.
  check_fast_forward("wave-skip", "run --hw TPU-v4 --workload llama2_7b_decode --set workload.params.layers=6", true,
                     false, true);
}

TEST_CASE("GEMMs whose operands fit in TPU-v4's CMEM are fast-forwarded only where the skipped waves miss alike") {
  // A 4096^3 GEMM's first waves miss in CMEM while its operands fill it; the later waves hit. Skipping those at the
  // first waves' misses read 11x the DRAM bytes --exact reads: the skip's touches find fewer misses and it is not
  // taken, while the 8192x128x8192 GEMM and the GEMV, which stream, still skip.
  check_fast_forward("cmem-fill", "run --hw TPU-v4 --workload gemm", true, false, false);
}

TEST_CASE(
    "a pipeline stage's training micro-batches under a power cap replay their backward groups within the bounds") {
  // GPipe on one B200 at its 1000 W cap: each layer's backward runs the weight-gradient GEMM beside the data-gradient
  // GEMM, an overlap group replayed from the fourth micro-batch on. The weight-gradient GEMM does little while the two
  // overlap; spent along the group's power profile, its FLOPs would crowd into the overlap, and the governor would read
  // 30 % over what --exact draws and step the clock down for the rest of the step (4.3 % of the energy, 79 % on an
  // op).
  compare_with_exact("pipeline-training-capped",
                     "run --hw B200 --workload pp_training --set dram.model=simple --set workload.params.seq=1024");
}

TEST_CASE("a 7-layer decode step with the detailed DRAM replays its short ops and stays within the bounds of --exact") {
  // H100's HBM3 refreshes per bank, so ops of 16 tREFIsb (3.9 us) are recorded: every op of this decode step lasts
  // 5 to 60 us, under the 16 tREFI (62 us) an all-bank standard would ask, and the last layers' are replayed once five
  // instances in a row held two that agree (sim/engine/op_memo.h; the first layer's cold ones are apart).
  compare_with_exact("decode-detailed",
                     "run --hw H100-SXM5 --workload llama2_7b_decode --set workload.params.layers=7 "
                     "--set dram.model=detailed");
}

TEST_CASE(
    "a decode step on TPU-v4 keeps, after a replayed GEMM, the residual that shares a CMEM block with its input") {
  // CMEM tracks 64 KiB blocks and tensors are 4 KiB aligned, so a layer's 8 KiB residual (h1) shares a block with the
  // normed activation that mlp.up reads every tile, which keeps the block and the residual resident in the
  // simulation. A replay of mlp.up that reinstalled only its own tensors' sectors dropped the residual, and
  // residual2 read it from DRAM again: 16 KiB instead of 8 KiB, 3.43 us instead of 2.87 (sim/engine/op_replay.cpp).
  compare_with_exact("tpu-residual", "run --hw TPU-v4 --workload llama2_7b_decode --set workload.params.layers=8");
}

TEST_CASE("GEMMs replayed while the governor re-clocks them draw what --exact draws and keep its clock") {
  // V100's 300 W cap re-clocks a pipeline stage's GEMMs about every 80 us, inside their replays. A replay keeps the
  // units' time it spent before each change and stretches only the rest; re-spending the stretched total along the
  // whole replay booked, at each step down, the stretch of the part already done: a window read 20-35 W high and the
  // governor stepped down again, five states in a row, and the replayed GEMMs ran 2% longer than --exact (total
  // 0.99%, energy 1.12% off). The stage's down-projection reads 9.5% more or less from DRAM from one instance to the
  // next under --exact itself (its tiles share V100's 6 MB L2 more or less), so bytes are not compared per op here.
  const auto dir = test::scratch_dir("memo-replay-reclocked");
  const std::string args = "run --hw V100-SXM2 --workload pp_forward --set workload.params.micro_batches=4 --quiet";
  const auto memo = test::run_roofsim(args + " --out " + (dir / "memo").string());
  REQUIRE(memo.exit_code == 0);
  const auto exact = test::run_roofsim(args + " --exact --out " + (dir / "exact").string());
  REQUIRE(exact.exit_code == 0);
  const auto m = report((dir / "memo").string());
  const auto e = report((dir / "exact").string());
  CHECK(relative(m["total"]["sim_time_s"].get<double>(), e["total"]["sim_time_s"].get<double>()) < 0.005);
  CHECK(relative(m["power"]["energy_j"].get<double>(), e["power"]["energy_j"].get<double>()) < 0.01);
  REQUIRE(m["ops"].size() == e["ops"].size());
  for (std::size_t i = 0; i < e["ops"].size(); ++i) {
    const auto& eo = e["ops"][i];
    if (eo["sim_time_s"].is_null() || !eo.value("simulated", true)) continue;
    INFO("op " << eo["name"].get<std::string>());
    CHECK(relative(m["ops"][i]["sim_time_s"].get<double>(), eo["sim_time_s"].get<double>()) < 0.02);
    // Each op's mean clock within one 15 MHz DVFS state of --exact's.
    CHECK(std::abs(m["ops"][i]["power"]["busy_clock_hz"].get<double>() - eo["power"]["busy_clock_hz"].get<double>()) <
          15e6);
  }
}

TEST_CASE(
    "the op after a GEMM replayed under a power cap reads the GEMM's output when the GEMM ends, as --exact does") {
  // On MI300X (750 W) the GEMMs of a GPT-3-like block run at 1.4 GHz until their last partial wave, whose low power
  // lets the governor step up before they end. Two things made the residual add after a replayed projection 78%
  // slower than --exact here (36.6% at GPT-3's full width):
  // - the replay installs the cache blocks its twin left, ready at the end it predicts at its start; the step up
  //   ends it earlier, and the residual add waited on its hits until then. They are ready at the earliest end the
  //   record allows (the top clock from its start);
  // - the twin was fast-forwarded, and its simulated tail ran before its skipped waves' hold: its record put the
  //   tail's low power mid-op, the governor stepped up there and not at the end, and the add started a state low.
  //   A record's clock course and power profile are on the op's own time (sim/engine/held_time.h).
  // The attention's time and some ops' bytes differ from one --exact instance to the next as much as the replay's
  // (2.5% and 9%), so this checks the residual adds, the total and the energy.
  const auto both = run_both_ways(
      "replay-ready",
      "run --hw MI300X --workload gpt3_175b_forward --set workload.params.layers=3 --set workload.params.hidden=8192 "
      "--set workload.params.heads=64 --set dram.model=simple");
  CHECK(relative(both.memo["total"]["sim_time_s"].get<double>(), both.exact["total"]["sim_time_s"].get<double>()) <
        0.005);
  const auto time = [](const nlohmann::json& op) { return op["sim_time_s"].get<double>(); };
  CHECK(check_ops(both, {"residual"}, time, 0.02) == 6);
}

TEST_CASE("a training stage's overlap groups replayed under a power cap draw each member's energy where --exact does") {
  // In the backward pass the weight-gradient GEMM runs beside the data-gradient GEMM. A replayed member spends its
  // counters along its own energy as the governor read it while it was recorded; spread from its tiles' residency
  // instead (a tile at half speed beside the other GEMM, then at full speed, booked at its mean rate from its start),
  // the weight-gradient GEMM's FLOPs landed 100 us late on A100 (400 W): the governor read a dip where --exact reads
  // its peak, stayed 35 MHz higher, and the GEMM drew 4.9% more energy than under --exact.
  const auto both =
      run_both_ways("group-energy",
                    "run --hw A100-SXM4-80GB --workload pp_training --set workload.params.micro_batches=4 "
                    "--set workload.params.layers=1");
  const auto energy = [](const nlohmann::json& op) { return op["power"]["energy_j"].get<double>(); };
  CHECK(check_ops(both, {".bwd.", "grad"}, energy, 0.025) == 16);
}

TEST_CASE("a replayed overlap group leaves in the caches only the tensors of the members it replayed") {
  // MI300X's pipeline stage at 4 micro-batches: a backward group (the last layer's up-projection gradients) was
  // recorded on a rank where the next micro-batch's receive and first data-gradient GEMM joined it; here they start
  // after its end. Installing every recorded member's blocks left that GEMM's 134 MB weight half resident in the
  // 256 MB infinity cache, and the GEMM read 151 MB from DRAM. Its weight was last read a whole micro-batch's backward
  // earlier, over a GB of traffic ago: each data-gradient GEMM after the first reads its compulsory bytes, the
  // incoming gradient (2048 x 4096), the weight (4096 x 16384) and its output (2048 x 16384), in fp16.
  const auto dir = test::scratch_dir("group-install");
  const auto run = test::run_roofsim(
      "run --hw MI300X --workload pp_training --set workload.params.micro_batches=4 --out " + dir.string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto memo = report(dir.string());
  const double compulsory = 2.0 * (2048.0 * 4096 + 4096.0 * 16384 + 2048.0 * 16384);
  int checked = 0;
  for (const auto& op : memo["ops"]) {
    const auto name = op["name"].get<std::string>();
    if (name.find(".l1.bwd.down.dgrad") == std::string::npos || name.find("mb3.") != std::string::npos) continue;
    INFO(name);
    CHECK(op["bytes"]["dram"].get<double>() == doctest::Approx(compulsory).epsilon(0.005));
    ++checked;
  }
  CHECK(checked == 3);
}
