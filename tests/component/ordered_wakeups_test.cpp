// OrderedWakeups between stub processes: wake-ups that fall on one instant run in one fixed order, whatever order
// they were asked in and however many unrelated timed events share the kernel; a later request does not replace an
// earlier one, and a cancelled wake-up does not run.
#include <doctest/doctest.h>

#include <systemc>

#include <memory>
#include <vector>

#include "models/memory/ordered_wakeups.h"

using namespace roofsim;

namespace {

struct Client : sc_core::sc_module {
  SC_HAS_PROCESS(Client);
  Client(const sc_core::sc_module_name& name, int id, std::vector<std::vector<int>>& log)
      : sc_core::sc_module(name), id_(id), log_(log) {
    SC_METHOD(woke);
    sensitive << event_;
    dont_initialize();
  }
  void woke() {
    const TimeFs now = sc_core::sc_time_stamp().value();
    log_[now / 100].push_back(id_);
  }
  sc_core::sc_event event_;
  WakeHandle wake{event_};
  int id_;
  std::vector<std::vector<int>>& log_;
};

// At 0: the clients ask for 100 fs in reverse order, client 0 also for 300 fs (ignored: it is due earlier) and
// client 1 for 50 fs, then cancels. At 100 fs: the clients ask for 400 fs in forward order, client 2 first for
// 500 fs and then for 400 fs (the earlier replaces it). Unrelated timed events at 100 fs and 400 fs disturb the
// kernel's event heap.
struct Driver : sc_core::sc_module {
  SC_HAS_PROCESS(Driver);
  Driver(const sc_core::sc_module_name& name, std::vector<std::unique_ptr<Client>>& clients)
      : sc_core::sc_module(name), clients_(clients), noise_(64) {
    SC_THREAD(run);
  }
  void run() {
    for (auto& event : noise_) event.notify(sc_core::sc_time::from_value(100));
    for (auto it = clients_.rbegin(); it != clients_.rend(); ++it) (*it)->wake.notify_at(100);
    clients_[0]->wake.notify_at(300);
    clients_[1]->wake.notify_at(50);
    clients_[1]->wake.cancel();
    wait(sc_core::sc_time::from_value(100));
    for (std::size_t i = 0; i < noise_.size(); i += 2) noise_[i].notify(sc_core::sc_time::from_value(300));
    clients_[2]->wake.notify_at(500);
    for (auto& client : clients_) client->wake.notify_at(400);
  }
  std::vector<std::unique_ptr<Client>>& clients_;
  std::vector<sc_core::sc_event> noise_;
};

}  // namespace

TEST_CASE("wake-ups at one instant run in a fixed order and a cancelled one does not run") {
  std::vector<std::vector<int>> log(6);
  OrderedWakeups order("order");
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<Client>(sc_core::sc_gen_unique_name("client"), i, log));
    clients.back()->wake.attach(order);
  }
  Driver driver("driver", clients);
  sc_core::sc_start();
  CHECK(log[0].empty());
  REQUIRE(log[1].size() == 3);  // clients 0, 2 and 3; client 1 cancelled
  CHECK(log[2].empty());
  CHECK(log[3].empty());  // client 0's 300 fs request came while it was due at 100 fs
  REQUIRE(log[4].size() == 4);
  CHECK(log[5].empty());  // client 2's 500 fs request was replaced by its 400 fs one
  // The same relative order at both instants although the requests came in opposite orders.
  std::vector<int> without_1;
  for (const int id : log[4])
    if (id != 1) without_1.push_back(id);
  CHECK(without_1 == log[1]);
}
