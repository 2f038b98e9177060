#pragma once
// SIGINT and SIGTERM as a request to stop. Long work (a simulation, a sweep's points) runs inside a DeferInterrupts
// scope: there a signal is only recorded, the work checks interrupt_signal() at its safe points, writes what is
// complete and the command exits with interrupted_exit_code(). Outside such a scope a signal ends the process at once
// (exit 128 + signal) after removing the paths registered with RemoveOnSignal (the output folder's lock, a
// half-written temporary), since nothing is worth saving there; so does the same signal arriving a second time, for
// a user who will not wait. The handler does only async-signal-safe work.
#include <filesystem>

namespace roofsim {

// Installs the handlers for SIGINT and SIGTERM (once per process; the CLI calls it first).
void install_interrupt_handlers();

// The signal that asked this process to stop (SIGINT or SIGTERM), 0 when none arrived.
[[nodiscard]] int interrupt_signal();

// 128 + the signal, as a shell reports a process the signal ended: 130 for SIGINT, 143 for SIGTERM.
[[nodiscard]] int interrupted_exit_code();

// "SIGINT", "SIGTERM".
[[nodiscard]] const char* interrupt_signal_name();

// While one exists, a first SIGINT or SIGTERM is recorded for the work to notice instead of ending the process.
class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;
};

// A path the signal handler unlinks when a signal ends the process outside a DeferInterrupts scope. A few can be
// registered at once (the lock and one temporary file per writer); registering more throws std::logic_error.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::filesystem::path& path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  int slot_;
};

}  // namespace roofsim
