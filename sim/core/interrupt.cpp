#include "sim/core/interrupt.h"

#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

namespace roofsim {

namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_defer_depth = 0;

struct Slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX] = {};
};
constexpr int kSlots = 8;
Slot g_slots[kSlots];

static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads the slots' flags");

extern "C" void on_interrupt(int signal) {
  const int first = g_signal;
  if (first == 0) g_signal = signal;
  // Deferred work stops at its next check; the same signal a second time (Ctrl-C pressed again) does not wait for it.
  if (g_defer_depth > 0 && first != signal) return;
  for (auto& slot : g_slots) {
    if (slot.used.load()) ::unlink(slot.path);
  }
  ::_exit(128 + signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = SA_RESTART;
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction previous {};
    ::sigaction(signal, nullptr, &previous);
    // A process started in the background of a non-interactive shell ignores SIGINT: keep it that way.
    if (previous.sa_handler == SIG_IGN) continue;
    ::sigaction(signal, &action, nullptr);
  }
}

int interrupt_signal() {
  return g_signal;
}

int interrupted_exit_code() {
  return g_signal == 0 ? 0 : 128 + g_signal;
}

const char* interrupt_signal_name() {
  switch (g_signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "no signal";
  }
}

DeferInterrupts::DeferInterrupts() {
  g_defer_depth = g_defer_depth + 1;
}

DeferInterrupts::~DeferInterrupts() {
  g_defer_depth = g_defer_depth - 1;
}

RemoveOnSignal::RemoveOnSignal(const std::filesystem::path& path) : slot_(-1) {
  const std::string text = path.string();
  if (text.size() >= PATH_MAX) return;  // no such file can exist, so there is nothing to remove
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].used.load()) continue;
    std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
    g_slots[i].used.store(true);
    slot_ = i;
    return;
  }
  throw std::logic_error("more than " + std::to_string(kSlots) + " paths to remove on a signal");
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0) g_slots[slot_].used.store(false);
}

}  // namespace roofsim
