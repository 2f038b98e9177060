#include "sim/sweep/sweep_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/core/interrupt.h"
#include "sim/core/output_file.h"

extern char** environ;

namespace roofsim {

namespace {

constexpr std::size_t kBarWidth = 30;

std::string clock_text(double seconds) {
  const auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  write_output_file(file, [&](std::ostream& out) { out << text; });
}

// The line that says what went wrong: roofsim prints "roofsim: error: ..." (bad input) or "roofsim: internal error".
std::string error_line(const std::string& stderr_text) {
  std::istringstream lines(stderr_text);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

// While the runner decides what to do next, SIGCHLD, SIGINT and SIGTERM are blocked; it waits for any of them with
// sigsuspend, which unblocks them atomically, so a signal that arrives between a check and the wait is never missed.
class ChildSignals {
 public:
  ChildSignals() {
    struct sigaction action {};
    action.sa_handler = on_child_exit;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    ::sigaction(SIGCHLD, &action, &previous_child_action_);
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGCHLD);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &blocked, &unblocked_);
  }
  ~ChildSignals() {
    ::sigprocmask(SIG_SETMASK, &unblocked_, nullptr);
    ::sigaction(SIGCHLD, &previous_child_action_, nullptr);
  }
  ChildSignals(const ChildSignals&) = delete;
  ChildSignals& operator=(const ChildSignals&) = delete;

  // Returns once a handler ran: a child exited, or SIGINT/SIGTERM was recorded (sim/core/interrupt.h).
  void wait() const { ::sigsuspend(&unblocked_); }
  // The mask a point's process starts with: the one the runner had, not the blocked one.
  [[nodiscard]] const sigset_t& child_mask() const { return unblocked_; }

 private:
  static void on_child_exit(int /*signal*/) {}
  sigset_t unblocked_{};
  struct sigaction previous_child_action_ {};
};

pid_t spawn(const PointJob& job, const ChildSignals& signals, std::string& error) {
  std::error_code folder_error;
  std::filesystem::create_directories(job.folder, folder_error);
  if (folder_error) throw OutputError(job.folder, folder_error.message());
  for (const char* stale : {"done", "error.txt", "report.json"}) {
    std::filesystem::remove(job.folder / stale, folder_error);
    if (folder_error) throw OutputError(job.folder / stale, folder_error.message());
  }
  const auto out_file = (job.folder / "stdout.txt").string();
  const auto err_file = (job.folder / "stderr.txt").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setsigmask(&attributes, &signals.child_mask());
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> argv;
  for (const auto& word : job.argv) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int code = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (code != 0) {
    error = std::string("cannot start ") + argv[0] + ": " + std::strerror(code);
    return -1;
  }
  return pid;
}

// Sends `signal` to every running point, reaps them all (SIGKILL for one still there after kStopGraceS) and notes how
// each ended in `ended` when given.
void stop_and_reap(std::map<pid_t, const PointJob*>& running, int signal,
                   std::vector<std::pair<const PointJob*, int>>* ended) {
  constexpr double kStopGraceS = 10.0;
  for (const auto& [pid, job] : running) ::kill(pid, signal);
  const auto start = std::chrono::steady_clock::now();
  bool killed = false;
  while (!running.empty()) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      const auto found = running.find(pid);
      if (found == running.end()) continue;
      if (ended != nullptr) ended->emplace_back(found->second, status);
      running.erase(found);
      continue;
    }
    if (pid < 0 && errno != EINTR) break;
    if (!killed && std::chrono::steady_clock::now() - start > std::chrono::duration<double>(kStopGraceS)) {
      for (const auto& [child, job] : running) ::kill(child, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

std::string progress_line(std::size_t done, std::size_t total, std::size_t failed, std::size_t run_done,
                          std::size_t run_total, double elapsed_s) {
  const std::size_t filled = total == 0 ? kBarWidth : done * kBarWidth / total;
  std::string line = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] ";
  line += fmt::format("{}/{} points", done, total);
  if (failed > 0) line += fmt::format(", {} failed", failed);
  if (run_done > 0 && run_done < run_total) {
    const double left_s = elapsed_s / static_cast<double>(run_done) * static_cast<double>(run_total - run_done);
    line += ", " + clock_text(left_s) + " left";
  } else if (run_done == run_total) {
    line += ", " + clock_text(elapsed_s) + " elapsed";
  }
  return line;
}

RunSummary run_point_jobs(const std::vector<PointJob>& jobs, std::size_t parallel, std::size_t already_done,
                          std::ostream& progress, bool terminal) {
  // Declared in this order so that signals unblocked at the end are still only recorded.
  const DeferInterrupts defer;
  const ChildSignals signals;
  RunSummary summary;
  const auto start = std::chrono::steady_clock::now();
  const std::size_t total = already_done + jobs.size();
  std::map<pid_t, const PointJob*> running;
  // Whatever ends the loop (an interruption, an output that cannot be written), no point's process outlives it.
  struct StopRunning {
    std::map<pid_t, const PointJob*>& running;
    ~StopRunning() { stop_and_reap(running, SIGTERM, nullptr); }
  } stop_running{running};
  std::size_t next = 0, finished = 0;
  auto report = [&](const PointJob* job, bool ok) {
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto line =
        progress_line(already_done + finished, total, summary.failures.size(), finished, jobs.size(), elapsed_s);
    if (terminal) {
      progress << "\r" << line << (finished == jobs.size() ? "\n" : "") << std::flush;
    } else if (job != nullptr) {
      progress << line << " (point " << job->index << (ok ? " done" : " failed") << ")\n" << std::flush;
    }
  };
  auto fail = [&](const PointJob& job, const std::string& error) {
    write_text(job.folder / "error.txt", error + "\n");
    summary.failures.push_back({job.index, error});
  };
  auto settle = [&](const PointJob& job, int status) {
    ++finished;
    const bool ok =
        WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(job.folder / "report.json");
    if (ok) {
      write_text(job.folder / "done", job.definition);
      ++summary.succeeded;
    } else {
      std::string error = describe_status(status);
      const auto line = error_line(read_text(job.folder / "stderr.txt"));
      if (!line.empty()) {
        error += ": " + line;
      } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        error += ": no report.json written";
      }
      fail(job, error);
    }
    report(&job, ok);
  };
  if (terminal && !jobs.empty()) report(nullptr, true);
  parallel = std::max<std::size_t>(parallel, 1);
  while ((next < jobs.size() || !running.empty()) && interrupt_signal() == 0) {
    while (next < jobs.size() && running.size() < parallel) {
      const auto& job = jobs[next++];
      std::string spawn_error;
      const pid_t pid = spawn(job, signals, spawn_error);
      if (pid < 0) {
        fail(job, spawn_error);
        ++finished;
        report(&job, false);
        continue;
      }
      running.emplace(pid, &job);
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid == 0) {
      signals.wait();
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto found = running.find(pid);
    if (found == running.end()) continue;
    const PointJob& job = *found->second;
    running.erase(found);
    settle(job, status);
  }
  if (interrupt_signal() != 0) {
    // The points still running get SIGTERM, write what they finished and are reaped; a point that completes
    // meanwhile counts as done. The others are neither done nor failed: a rerun of the sweep runs them. (SIGTERM, not
    // the sweep's own signal: after a Ctrl-C on a terminal the points have SIGINT already, and a second one would end
    // them without their partial reports.)
    std::vector<std::pair<const PointJob*, int>> ended;
    stop_and_reap(running, SIGTERM, &ended);
    for (const auto& [job, status] : ended) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(job->folder / "report.json")) {
        settle(*job, status);
      } else {
        summary.interrupted.push_back(job->index);
      }
    }
    for (std::size_t i = next; i < jobs.size(); ++i) summary.interrupted.push_back(jobs[i].index);
    std::sort(summary.interrupted.begin(), summary.interrupted.end());
    if (terminal) progress << "\n" << std::flush;
  }
  std::sort(summary.failures.begin(), summary.failures.end(),
            [](const PointFailure& a, const PointFailure& b) { return a.index < b.index; });
  return summary;
}

std::size_t available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<std::size_t>(count);
  }
  return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

std::filesystem::path self_executable() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path("roofsim") : path;
}

std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

}  // namespace roofsim
