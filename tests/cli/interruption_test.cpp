// SIGINT and SIGTERM sent to a real roofsim process: the command stops promptly, writes what is complete (report.json
// with "complete": false and the ops that finished), leaves no lock or temporary behind, reaps a sweep's points and
// exits 130 (SIGINT) or 143 (SIGTERM).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli/roofsim_process.h"
#include "tests/cli/sweep_test_files.h"

using namespace roofsim;

namespace {

// Starts the command, waits until it locked its output folder (inputs loaded, simulation starting) and 1 s more,
// sends `signal` and waits for the end.
test::Ending interrupt_after_one_second(const std::vector<std::string>& args, const std::filesystem::path& lock_file,
                                        const std::filesystem::path& log_dir, int signal) {
  auto process = test::start_roofsim(args, log_dir, "interrupted");
  REQUIRE(process.pid > 0);
  REQUIRE(test::wait_for_file(lock_file, 60));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ::kill(process.pid, signal);
  const auto ending = test::wait_for_roofsim(process, 60);
  INFO("stderr: " << test::read_file(process.err_file));
  REQUIRE(ending.has_value());
  return *ending;
}

// roofsim processes whose command line mentions `text` (a test's own scratch path).
std::vector<std::string> processes_mentioning(const std::string& text) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string command((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& c : command) {
      if (c == '\0') c = ' ';
    }
    if (command.find(text) != std::string::npos) found.push_back(name + ": " + command);
  }
  return found;
}

}  // namespace

TEST_CASE("SIGINT stops a run: exit 130, report.json of the finished ops marked incomplete, no stale trace") {
  const auto dir = test::scratch_dir("interrupt-run");
  const auto out = dir / "out";
  std::filesystem::create_directories(out);
  // A trace.json of an earlier complete run must not stay beside the interrupted run's report.
  test::write_file(out / "trace.json", "{}\n");
  const auto ending = interrupt_after_one_second(
      {"run", "--hw", "H100-SXM5", "--workload", "gpt3_175b_block_prefill", "--out", out.string()},
      out / ".roofsim.lock", dir, SIGINT);
  CHECK(ending.code == 130);
  CHECK(ending.after_s < 10.0);
  const auto err = test::read_file(dir / "interrupted.stderr");
  CHECK(err.find("interrupted by SIGINT") != std::string::npos);
  const auto report = nlohmann::json::parse(test::read_file(out / "report.json"));
  CHECK(report.at("complete") == false);
  // The block has 10 ops; after a second of a run that takes several, some are not finished.
  CHECK(report.at("ops").size() < 10);
  for (const auto& op : report.at("ops")) CHECK(op.at("sim_time_s").get<double>() > 0);
  CHECK(std::filesystem::exists(out / "ops.csv"));
  CHECK_FALSE(std::filesystem::exists(out / "trace.json"));
  CHECK(test::hidden_files(out).empty());
}

TEST_CASE("a long cluster run prints progress over its simulated ranks, --quiet none, and SIGTERM stops both") {
  const auto dir = test::scratch_dir("interrupt-cluster");
  // The 4-stage pipeline simulated in full takes minutes: well past the 2 s after which progress lines begin.
  const std::vector<std::string> args = {"run",        "--hw",  "8xH100-NVSwitch",   "--workload",
                                         "pp_forward", "--set", "cluster.devices=4", "--exact"};
  auto loud = test::start_roofsim(
      [&] {
        auto a = args;
        a.insert(a.end(), {"--out", (dir / "loud").string()});
        return a;
      }(),
      dir, "loud");
  auto quiet = test::start_roofsim(
      [&] {
        auto a = args;
        a.insert(a.end(), {"--quiet", "--out", (dir / "quiet").string()});
        return a;
      }(),
      dir, "quiet");
  REQUIRE(loud.pid > 0);
  REQUIRE(quiet.pid > 0);
  REQUIRE(test::wait_for_file(dir / "loud" / ".roofsim.lock", 60));
  REQUIRE(test::wait_for_file(dir / "quiet" / ".roofsim.lock", 60));
  std::this_thread::sleep_for(std::chrono::seconds(5));
  ::kill(loud.pid, SIGTERM);
  ::kill(quiet.pid, SIGTERM);
  const auto loud_end = test::wait_for_roofsim(loud, 60);
  const auto quiet_end = test::wait_for_roofsim(quiet, 60);
  REQUIRE(loud_end.has_value());
  REQUIRE(quiet_end.has_value());
  CHECK(loud_end->code == 143);
  CHECK(quiet_end->code == 143);
  const auto loud_err = test::read_file(dir / "loud.stderr");
  const auto quiet_err = test::read_file(dir / "quiet.stderr");
  INFO(loud_err);
  // Four stages of 64 ops, one simulated rank each.
  CHECK(loud_err.find("/256 ops done, simulated ") != std::string::npos);
  CHECK(quiet_err.find("progress:") == std::string::npos);
  CHECK(nlohmann::json::parse(test::read_file(dir / "loud" / "report.json")).at("complete") == false);
}

TEST_CASE("SIGTERM stops a DRAM run: exit 143 and dram.json of the requests served, marked incomplete") {
  const auto dir = test::scratch_dir("interrupt-dram");
  const auto out = dir / "out";
  const auto ending = interrupt_after_one_second(
      {"dram", "--hw", "HBM2-2000", "--pattern", "random", "--bytes", "512MiB", "--out", out.string()},
      out / ".roofsim.lock", dir, SIGTERM);
  CHECK(ending.code == 143);
  CHECK(ending.after_s < 10.0);
  const auto json = nlohmann::json::parse(test::read_file(out / "dram.json"));
  CHECK(json.at("complete") == false);
  CHECK(test::read_file(dir / "interrupted.stderr").find("interrupted by SIGTERM") != std::string::npos);
  CHECK(test::hidden_files(out).empty());
}

TEST_CASE("SIGINT stops a collective sweep between two sizes: exit 130 and collective.csv of the sizes done") {
  const auto dir = test::scratch_dir("interrupt-collective");
  const auto out = dir / "out";
  // Sizes 1 MB x 1.05 up to 16 GB: each takes longer than the one before, some 40 s in all.
  const auto ending = interrupt_after_one_second({"collective", "--hw", "8xH100-NVSwitch", "--min", "1MB", "--max",
                                                  "16GB", "--factor", "1.05", "--out", out.string()},
                                                 out / ".roofsim.lock", dir, SIGINT);
  CHECK(ending.code == 130);
  CHECK(ending.after_s < 10.0);
  const auto csv = test::read_file(out / "collective.csv");
  const auto rows = std::count(csv.begin(), csv.end(), '\n') - 1;
  CHECK(rows > 0);
  CHECK(rows < 200);  // 1 MB to 16 GB by 1.05 is 200 sizes
  CHECK(test::hidden_files(out).empty());
}

TEST_CASE("SIGINT stops a sweep: its points are stopped and reaped, done points stay, exit 130") {
  const auto dir = test::scratch_dir("interrupt-sweep");
  const auto out = dir / "out";
  const auto file = test::write_file(dir / "long.toml", R"([sweep]
name = "long"
hardware = "H100-SXM5"
workload = "gpt3_175b_block_prefill"
metrics = ["sim_time_s"]

[[axis]]
key = "workload.params.batch"
values = [1, 2, 3, 4]
)");
  // The lock of the first point's own run: both running points are simulating by then.
  const auto ending = interrupt_after_one_second({"sweep", file.string(), "--jobs", "2", "--out", out.string()},
                                                 out / "points" / "p0000" / ".roofsim.lock", dir, SIGINT);
  CHECK(ending.code == 130);
  CHECK(ending.after_s < 15.0);
  CHECK(processes_mentioning(out.string()).empty());
  const auto err = test::read_file(dir / "interrupted.stderr");
  CHECK(err.find("interrupted by SIGINT") != std::string::npos);
  // The stopped points wrote what they finished and are neither done nor failed, so a rerun runs them.
  const auto first = out / "points" / "p0000";
  CHECK(nlohmann::json::parse(test::read_file(first / "report.json")).at("complete") == false);
  CHECK_FALSE(std::filesystem::exists(first / "done"));
  CHECK_FALSE(std::filesystem::exists(first / "error.txt"));
  CHECK_FALSE(std::filesystem::exists(out / "points" / "p0003"));
  const auto csv = test::read_file(out / "sweep.csv");
  CHECK(csv.find("0,1,,missing") != std::string::npos);
  CHECK(test::hidden_files(out).empty());
}
