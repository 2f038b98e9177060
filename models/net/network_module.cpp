#include "models/net/network_module.h"

#include <string>

namespace roofsim::net {

namespace {
// Femtoseconds per tick of the kernel's time resolution (1 after prepare_systemc_process()); times are exchanged
// as integer tick counts, never through doubles, so they stay exact beyond 2^53 fs.
TimeFs fs_per_tick() {
  static const auto ticks = static_cast<TimeFs>(sc_core::sc_get_time_resolution().to_seconds() * kFsPerSecond + 0.5);
  return ticks;
}
sc_core::sc_time from_fs(TimeFs fs) {
  return sc_core::sc_time::from_value(fs / fs_per_tick());
}
}  // namespace

NetworkModule::NetworkModule(const sc_core::sc_module_name& name, const Topology& topology, NetworkOptions options)
    : sc_core::sc_module(name), core_(topology, std::move(options)) {
  core_.on_completion([this](CollectiveId id, TimeFs finish_fs) {
    done_[id]->notify(sc_core::SC_ZERO_TIME);
    if (on_completion_) on_completion_(id, finish_fs);
  });
  SC_METHOD(advance);
  sensitive << wake_;
  dont_initialize();
}

TimeFs NetworkModule::now_fs() {
  return static_cast<TimeFs>(sc_core::sc_time_stamp().value()) * fs_per_tick();
}

CollectiveId NetworkModule::issue(std::shared_ptr<const Schedule> schedule) {
  // The event is created before the core can complete the collective (an empty schedule completes at once).
  done_.push_back(
      std::make_unique<sc_core::sc_event>((std::string(basename()) + "_done_" + std::to_string(done_.size())).c_str()));
  const CollectiveId id = core_.issue(std::move(schedule), now_fs());
  wake_.notify(sc_core::SC_ZERO_TIME);
  return id;
}

CollectiveId NetworkModule::issue(const CollectiveRequest& request) {
  return issue(std::make_shared<const Schedule>(build_schedule(request)));
}

sc_core::sc_time NetworkModule::finish_time(CollectiveId id) const {
  return from_fs(core_.finish_fs(id));
}

void NetworkModule::advance() {
  const TimeFs now = now_fs();
  core_.run_until(now);
  if (const auto next = core_.next_event_fs()) wake_.notify(from_fs(*next - now));
}

}  // namespace roofsim::net
