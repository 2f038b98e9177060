// `roofsim bench scale`: the scale scenarios (whole models, a tensor-parallel decode step, a thousand-GPU training
// step, one block with the detailed DRAM), each run as `roofsim run` in a child process so that its CPU time and peak
// RSS are its own, then again with --exact to measure what memoization and fast-forward cost in accuracy.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/app.h"
#include "sim/config/data_paths.h"

namespace roofsim::cli {

namespace {

struct ScaleScenario {
  std::string name;
  std::vector<std::string> args;  // of `roofsim run`, before --out
  double cpu_target_s = 0;
  double rss_target_gib = 0;  // 0: none
  std::string needs_file;     // a bundled file the scenario runs on; missing: "not available"
};

ScaleScenario without_fast_forward(ScaleScenario scenario) {
  scenario.name += ", --no-fast-forward";
  scenario.args.emplace_back("--no-fast-forward");
  return scenario;
}

std::vector<ScaleScenario> scale_scenarios() {
  std::vector<ScaleScenario> scenarios;
  ScaleScenario forward{"GPT-3 175B forward, 96 layers, 2048 tokens, H100, detailed DRAM",
                        {"--hw", "H100-SXM5", "--workload", "gpt3_175b_forward", "--set", "dram.model=detailed"},
                        15.0,
                        1.0,
                        ""};
  scenarios.push_back(forward);
  // Memoization alone as well: what steady-state fast-forward (on by default) adds, so that neither figure is taken
  // for the other.
  scenarios.push_back(without_fast_forward(forward));
  scenarios.push_back({"Llama-2 70B decode step, 80 layers, batch 64, 4k context, TP8 on 8xH100",
                       {"--hw", "8xH100-NVSwitch", "--workload", "llama2_70b_decode_tp8"},
                       10.0,
                       0.0,
                       ""});
  const auto cluster = resolve_data_file("128x8xH100-NDR", "configs/clusters");
  ScaleScenario training{"GPT-3 175B training step on 1024 H100 (TP8 x PP8 x DP16, batch 8 in 8 microbatches)",
                         {"--hw", cluster.string(), "--model", "gpt3_175b"},
                         120.0,
                         4.0,
                         cluster.string()};
  for (const auto* key : {"workload.phase=train", "workload.tp=8", "workload.pp=8", "workload.dp=16",
                          "workload.batch=8", "workload.micro_batches=8"}) {
    training.args.emplace_back("--set");
    training.args.emplace_back(key);
  }
  scenarios.push_back(training);
  scenarios.push_back(without_fast_forward(training));
  scenarios.push_back({"bench (b), one GPT-3 block, detailed DRAM",
                       {"--hw", "H100-SXM5", "--workload", "gpt3_175b_block_prefill", "--set", "dram.model=detailed"},
                       3.0,
                       0.0,
                       ""});
  return scenarios;
}

inline constexpr double kMemoLimitFactor = 10.0;

struct ChildRun {
  bool finished = false;  // exited 0 within the time limit
  int exit_code = 0;
  double cpu_s = 0;
  double rss_gib = 0;
  std::string error;  // the child's stderr when it failed
};

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs this executable with `args` in `dir` (stdout and stderr to files there), stopping it with SIGTERM after
// `limit_s` of wall time (it then writes what finished, marked incomplete).
ChildRun run_child(const std::vector<std::string>& args, const std::filesystem::path& dir, double limit_s) {
  std::vector<std::string> argv_strings{"roofsim", "run"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  for (const auto* extra : {"--quiet", "--summary", "--out"}) argv_strings.emplace_back(extra);
  argv_strings.push_back((dir / "out").string());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto out_file = (dir / "stdout.txt").string();
  const auto err_file = (dir / "stderr.txt").string();
  std::cout.flush();
  const pid_t child = ::fork();
  if (child < 0) return ChildRun{false, 1, 0, 0, "fork failed"};
  if (child == 0) {
    if (std::freopen(out_file.c_str(), "w", stdout) == nullptr ||
        std::freopen(err_file.c_str(), "w", stderr) == nullptr)
      std::_Exit(1);
    ::execv("/proc/self/exe", argv.data());
    std::_Exit(127);
  }
  const auto start = std::chrono::steady_clock::now();
  bool stopped = false;
  int status = 0;
  rusage usage{};
  while (::wait4(child, &status, WNOHANG, &usage) == 0) {
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!stopped && wall_s > limit_s) {
      ::kill(child, SIGTERM);
      stopped = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ChildRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.finished = !stopped && run.exit_code == 0;
  run.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
              1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  run.rss_gib = static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);
  if (!run.finished && !stopped) run.error = read_text(err_file);
  return run;
}

// A report's per-op results: a device run's, or the first simulated rank's of a cluster run.
const nlohmann::json& ops_of(const nlohmann::json& report) {
  if (report.contains("ops")) return report["ops"];
  return report["ranks"][0]["ops"];
}

double relative_pct(double value, double reference) {
  if (reference == 0) return value == 0 ? 0.0 : 100.0;
  return 100.0 * std::abs(value - reference) / std::abs(reference);
}

// Bytes each memory level moved over the run: the sums of the ops' per-level bytes.
std::map<std::string, double> level_bytes(const nlohmann::json& ops) {
  std::map<std::string, double> sums;
  for (const auto& op : ops) {
    if (!op.contains("bytes") || !op["bytes"].is_object()) continue;
    for (const auto& [level, bytes] : op["bytes"].items()) {
      if (bytes.is_number()) sums[level] += bytes.get<double>();
    }
  }
  return sums;
}

// A memoized run against its --exact twin, in %: total simulated time, the worst op's time, the worst level's bytes
// over the run and the energy (the report's, of a device run or of the first simulated rank).
std::string compare_with_exact(const std::filesystem::path& memo_dir, const std::filesystem::path& exact_dir) {
  const auto memo = nlohmann::json::parse(read_text(memo_dir / "report.json"));
  const auto exact = nlohmann::json::parse(read_text(exact_dir / "report.json"));
  const double total =
      relative_pct(memo["total"]["sim_time_s"].get<double>(), exact["total"]["sim_time_s"].get<double>());
  const auto& memo_ops = ops_of(memo);
  const auto& exact_ops = ops_of(exact);
  double worst = 0;
  std::string worst_name = "-";
  for (std::size_t i = 0; i < std::min(memo_ops.size(), exact_ops.size()); ++i) {
    const auto& m = memo_ops[i]["sim_time_s"];
    const auto& e = exact_ops[i]["sim_time_s"];
    if (!m.is_number() || !e.is_number()) continue;
    const double d = relative_pct(m.get<double>(), e.get<double>());
    if (d > worst) {
      worst = d;
      worst_name = exact_ops[i]["name"].get<std::string>();
    }
  }
  const auto memo_levels = level_bytes(memo_ops);
  double worst_level = 0;
  std::string worst_level_name = "-";
  for (const auto& [level, bytes] : level_bytes(exact_ops)) {
    const auto it = memo_levels.find(level);
    const double d = relative_pct(it == memo_levels.end() ? 0.0 : it->second, bytes);
    if (d >= worst_level) {
      worst_level = d;
      worst_level_name = level;
    }
  }
  std::string energy = "-";
  if (memo.contains("power") && exact.contains("power") && exact["power"].contains("energy_j")) {
    energy = fmt::format(
        "{:.3f}%", relative_pct(memo["power"]["energy_j"].get<double>(), exact["power"]["energy_j"].get<double>()));
  }
  return fmt::format("total time {:.3f}%, worst op {:.3f}% ({}), bytes per level {:.3f}% ({}), energy {}", total, worst,
                     worst_name, worst_level, worst_level_name, energy);
}

std::string verdict(bool met) {
  return met ? "met" : "NOT met";
}

}  // namespace

int run_scale_bench(bool with_exact, double exact_limit_s) {
  const auto scratch = std::filesystem::temp_directory_path() / fmt::format("roofsim-bench-scale-{}", ::getpid());
  int code = 0;
  for (const auto& scenario : scale_scenarios()) {
    std::cout << scenario.name << "\n  roofsim run " << fmt::format("{}", fmt::join(scenario.args, " ")) << "\n";
    if (!scenario.needs_file.empty() && !path_exists(scenario.needs_file)) {
      std::cout << "  not available (no " << scenario.needs_file << ")\n";
      continue;
    }
    const auto memo_dir = scratch / "memo";
    const auto exact_dir = scratch / "exact";
    std::filesystem::create_directories(memo_dir);
    std::filesystem::create_directories(exact_dir);
    // The memoized run's CPU time is the figure; a run still going after kMemoLimitFactor times its target (in wall
    // time, which on a shared machine runs ahead of CPU time) has missed it by far, and is stopped so that the
    // other scenarios still run.
    const double memo_limit_s = kMemoLimitFactor * scenario.cpu_target_s;
    const auto memo = run_child(scenario.args, memo_dir, memo_limit_s);
    if (!memo.finished && memo.error.empty()) {
      std::cout << fmt::format(
          "  stopped after {:.0f} s of wall time: CPU {:.2f} s (target < {:.0f} s: NOT met), peak RSS {:.3f} GiB\n",
          memo_limit_s, memo.cpu_s, scenario.cpu_target_s, memo.rss_gib);
      code = 1;
      std::filesystem::remove_all(scratch);
      continue;
    }
    if (!memo.finished) {
      std::cout << fmt::format("  failed (exit {}): {}\n", memo.exit_code, memo.error);
      code = 1;
      std::filesystem::remove_all(scratch);
      continue;
    }
    std::string line = fmt::format("  CPU {:.2f} s (target < {:.0f} s: {}), peak RSS {:.3f} GiB", memo.cpu_s,
                                   scenario.cpu_target_s, verdict(memo.cpu_s < scenario.cpu_target_s), memo.rss_gib);
    if (scenario.rss_target_gib > 0) {
      line += fmt::format(" (target < {:.0f} GiB: {})", scenario.rss_target_gib,
                          verdict(memo.rss_gib < scenario.rss_target_gib));
    }
    const auto memo_report = nlohmann::json::parse(read_text(memo_dir / "out" / "report.json"));
    line += fmt::format("; simulated {:.6g} ms", 1e3 * memo_report["total"]["sim_time_s"].get<double>());
    std::cout << line << "\n";
    if (!with_exact) {
      std::cout << "  --exact: skipped (--no-exact)\n";
    } else {
      auto exact_args = scenario.args;
      exact_args.emplace_back("--exact");
      const auto exact = run_child(exact_args, exact_dir, exact_limit_s);
      if (exact.finished) {
        std::cout << fmt::format("  --exact: CPU {:.2f} s, peak RSS {:.3f} GiB; memoized vs --exact: {}\n", exact.cpu_s,
                                 exact.rss_gib, compare_with_exact(memo_dir / "out", exact_dir / "out"));
      } else if (exact.error.empty()) {
        std::cout << fmt::format("  --exact: did not finish within {:.0f} s of wall time\n", exact_limit_s);
      } else {
        std::cout << fmt::format("  --exact: failed (exit {}): {}\n", exact.exit_code, exact.error);
        code = 1;
      }
    }
    std::cout.flush();
    std::filesystem::remove_all(scratch);
  }
  return code;
}

}  // namespace roofsim::cli
