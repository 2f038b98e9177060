#pragma once
// The thin SystemC shell of the network (DESIGN.md principles 3 and 4): it owns time and events only. The
// NetworkCore holds links, routes and schedules; this module wakes at the core's next event time, lets the core
// process everything due, and sleeps again. No clock, no per-packet process.
//
// Parameters: a Topology and NetworkOptions (built from a ClusterParams by the caller).
// Connects to: whoever calls issue() from a SystemC process (the engine's ranks, Network II).
// Wakes on: `wake_`, notified for the core's next event and whenever a collective is issued.
// Statistics: the core's (events, per-link bytes and messages).
#include <systemc>

#include <memory>
#include <vector>

#include "models/net/network_core.h"

namespace roofsim::net {

class NetworkModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(NetworkModule);
  NetworkModule(const sc_core::sc_module_name& name, const Topology& topology, NetworkOptions options);

  // Starts a finalized schedule at the current simulation time; done(id) fires when its last op has finished.
  CollectiveId issue(std::shared_ptr<const Schedule> schedule);
  // A collective on a group of ranks (request.ranks), built and started now.
  CollectiveId issue(const CollectiveRequest& request);
  [[nodiscard]] const sc_core::sc_event& done(CollectiveId id) const { return *done_[id]; }
  [[nodiscard]] bool finished(CollectiveId id) const { return core_.finished(id); }
  [[nodiscard]] sc_core::sc_time finish_time(CollectiveId id) const;
  [[nodiscard]] const NetworkCore& core() const { return core_; }
  // A link whose reservations the observer must see as they happen (NetworkCore::watch).
  void watch(LinkId link) { core_.watch(link); }
  // Called (from the module's process, inside the core's event processing) when a collective finishes; the handler
  // must not issue: it notes the completion and lets a process of its own act on it.
  void on_completion(NetworkCore::CompletionHandler handler) { on_completion_ = std::move(handler); }
  // Called for every link reservation (traces of busy links).
  void on_reservation(std::function<void(const LinkReservation&)> observer) {
    core_.on_reservation(std::move(observer));
  }

 private:
  void advance();
  [[nodiscard]] static TimeFs now_fs();

  NetworkCore core_;
  sc_core::sc_event wake_;
  std::vector<std::unique_ptr<sc_core::sc_event>> done_;
  NetworkCore::CompletionHandler on_completion_;
};

}  // namespace roofsim::net
