#include "sim/engine/empty_model.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace roofsim {

namespace {

// One SC_METHOD that re-notifies its own event until it has run its share. Periods differ per process (by a few
// femtoseconds) so that, as in the device model, processes wake at distinct times rather than in one delta cycle.
class Ticker : public sc_core::sc_module {
 public:
  Ticker(const sc_core::sc_module_name& name, std::uint64_t runs, std::uint64_t period_fs)
      : sc_core::sc_module(name), runs_(runs), period_(sc_core::sc_time::from_value(period_fs)) {
    SC_HAS_PROCESS(Ticker);
    SC_METHOD(tick);
    sensitive << event_;
  }
  [[nodiscard]] std::uint64_t done() const { return done_; }

 private:
  void tick() {
    if (++done_ < runs_) event_.notify(period_);
  }

  std::uint64_t runs_;
  sc_core::sc_time period_;
  sc_core::sc_event event_;
  std::uint64_t done_ = 0;
};

}  // namespace

EmptyModelResult run_empty_model(std::uint64_t processes, std::uint64_t activations) {
  processes = std::max<std::uint64_t>(processes, 1);
  std::vector<std::unique_ptr<Ticker>> tickers;
  constexpr std::uint64_t kPeriodFs = 1000000;  // 1 ns
  for (std::uint64_t i = 0; i < processes; ++i) {
    const std::uint64_t runs = activations / processes + (i < activations % processes ? 1 : 0);
    tickers.push_back(std::make_unique<Ticker>(("ticker" + std::to_string(i)).c_str(), std::max<std::uint64_t>(runs, 1),
                                               kPeriodFs + 7 * i));
  }
  const auto start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  EmptyModelResult result;
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (auto& ticker : tickers) {
    result.activations += ticker->done();
    static_cast<void>(ticker.release());  // owned by the SystemC hierarchy until exit, as the engine's device is
  }
  return result;
}

}  // namespace roofsim
