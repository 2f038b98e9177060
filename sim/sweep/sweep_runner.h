#pragma once
// Runs the points of a sweep, each as its own roofsim process (SystemC allows one elaboration per process), at most
// N at a time. A point's stdout and stderr go to files in its folder; success writes its `done` marker, failure its
// error.txt (exit code and the first error line), and the other points go on.
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofsim {

struct PointJob {
  std::size_t index = 0;
  std::vector<std::string> argv;  // argv[0] is the roofsim binary
  std::filesystem::path folder;   // the point's folder (the command's --out)
  std::string definition;         // written to `done` on success
};

struct PointFailure {
  std::size_t index = 0;
  std::string error;
};

struct RunSummary {
  std::size_t succeeded = 0;
  std::vector<PointFailure> failures;  // in point order
  // Points a SIGINT or SIGTERM stopped or kept from starting, in point order: neither done nor failed, so that a
  // rerun of the sweep runs them.
  std::vector<std::size_t> interrupted;
};

// The progress line: "[#####.....] 12/40 points, 1 failed, 0:42 left". `done` and `total` count every point of the
// selection (skipped ones included); the time left is extrapolated from the points run in this invocation.
[[nodiscard]] std::string progress_line(std::size_t done, std::size_t total, std::size_t failed, std::size_t run_done,
                                        std::size_t run_total, double elapsed_s);

// Runs the jobs `parallel` at a time; progress is redrawn in place on a terminal, else one line per finished point.
// On SIGINT or SIGTERM (sim/core/interrupt.h) it starts no more points, sends SIGTERM to the running ones and reaps
// them before it returns; no point's process outlives the call, whatever ends it.
[[nodiscard]] RunSummary run_point_jobs(const std::vector<PointJob>& jobs, std::size_t parallel,
                                        std::size_t already_done, std::ostream& progress, bool terminal);

// CPUs this process may run on (its affinity mask, which Slurm and taskset narrow), at least 1.
[[nodiscard]] std::size_t available_cores();

// The running binary (/proc/self/exe), for the points' commands.
[[nodiscard]] std::filesystem::path self_executable();

// A word quoted for a POSIX shell when it needs to be ('a b' -> "'a b'").
[[nodiscard]] std::string shell_quote(const std::string& word);

}  // namespace roofsim
