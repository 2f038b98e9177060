#pragma once
// A roofsim process a test starts, signals and reaps itself (run_roofsim waits for its command to end). The child
// starts with SIGINT and SIGTERM at their defaults and unblocked, whatever the test runner's shell set, so that a
// signal the test sends reaches roofsim's own handling.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_paths.h"

extern char** environ;

namespace roofsim::test {

struct RoofsimProcess {
  pid_t pid = -1;
  std::filesystem::path out_file;  // its stdout
  std::filesystem::path err_file;  // its stderr
};

// Starts build/roofsim with `args` (no shell); stdout and stderr go to `log_dir`/`name`.stdout and .stderr.
inline RoofsimProcess start_roofsim(const std::vector<std::string>& args, const std::filesystem::path& log_dir,
                                    const std::string& name) {
  RoofsimProcess process;
  process.out_file = log_dir / (name + ".stdout");
  process.err_file = log_dir / (name + ".stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, process.out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, process.err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  const std::string binary = roofsim_binary().string();
  std::vector<std::string> words = {binary};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  if (posix_spawn(&process.pid, binary.c_str(), &actions, &attributes, argv.data(), environ) != 0) process.pid = -1;
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return process;
}

// How a process ended: its exit code, or -N when signal N killed it.
struct Ending {
  int code = 0;
  double after_s = 0;  // from the call of wait_for_roofsim
};

// Waits up to `timeout_s`; a process still running then is killed (SIGKILL) and reported as std::nullopt.
inline std::optional<Ending> wait_for_roofsim(RoofsimProcess& process, double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(process.pid, &status, WNOHANG);
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done == process.pid) {
      process.pid = -1;
      return Ending{WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), elapsed_s};
    }
    if (elapsed_s > timeout_s) {
      ::kill(process.pid, SIGKILL);
      ::waitpid(process.pid, &status, 0);
      process.pid = -1;
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Waits until `file` exists (the output lock: the inputs are loaded and the simulation is about to start).
inline bool wait_for_file(const std::filesystem::path& file, double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  while (!std::filesystem::exists(file)) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Files in `dir` (recursively) whose name starts with '.': temporaries or a lock left behind.
inline std::vector<std::string> hidden_files(const std::filesystem::path& dir) {
  std::vector<std::string> found;
  if (!std::filesystem::exists(dir)) return found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().filename().string().front() == '.') found.push_back(entry.path().string());
  }
  return found;
}

}  // namespace roofsim::test
