// DeviceScheduler between stub clients: wake-ups that fall on one instant run in one fixed order (the highest index
// first), whatever order they were asked in and however many unrelated timed events share the kernel; a later
// request does not replace an earlier one, a cancelled wake-up does not run; a client asked for now during a round
// runs in the next round, one delta cycle later, the last asked first (and again, if it was still to run in this
// one); other processes woken at the same instant run before the clients; a WakeHandle without a scheduler wakes
// its client through the client's own process; and under random requests and cancels every client runs at its
// earliest pending time, as a plain list of pending times says.
#include <doctest/doctest.h>

#include <systemc>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "models/kernel/device_scheduler.h"

using namespace roofsim;

namespace {

struct Wake {
  TimeFs at_fs;
  sc_dt::uint64 delta;
  int id;
};

// A client that logs its wake-ups and then does what the test asks of it at that instant.
struct Client : sc_core::sc_module, Wakeable {
  SC_HAS_PROCESS(Client);
  Client(const sc_core::sc_module_name& name, int id, std::vector<Wake>& log)
      : sc_core::sc_module(name), id_(id), log_(log) {
    SC_METHOD(wake_now);
    sensitive << event_;
    dont_initialize();
  }
  void wake_now() override {
    const TimeFs now = sc_core::sc_time_stamp().value();
    log_.push_back(Wake{now, sc_core::sc_delta_count(), id_});
    if (const auto found = actions.find(now); found != actions.end()) found->second();
  }
  sc_core::sc_event event_;
  WakeHandle wake{event_};
  std::map<TimeFs, std::function<void()>> actions;  // what to do when woken at an instant
  int id_;
  std::vector<Wake>& log_;
};

std::vector<std::unique_ptr<Client>> make_clients(int count, std::vector<Wake>& log, DeviceScheduler* scheduler) {
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < count; ++i) {
    clients.push_back(std::make_unique<Client>(sc_core::sc_gen_unique_name("client"), i, log));
    if (scheduler != nullptr) clients.back()->wake.attach(*scheduler, *clients.back());
  }
  return clients;
}

std::vector<int> ids_at(const std::vector<Wake>& log, TimeFs at_fs) {
  std::vector<int> ids;
  for (const auto& wake : log)
    if (wake.at_fs == at_fs) ids.push_back(wake.id);
  return ids;
}

// Runs `body` as a thread from time 0.
struct Driver : sc_core::sc_module {
  SC_HAS_PROCESS(Driver);
  Driver(const sc_core::sc_module_name& name, std::function<void(Driver&)> body)
      : sc_core::sc_module(name), body_(std::move(body)) {
    SC_THREAD(run);
  }
  void run() { body_(*this); }
  void pause_fs(TimeFs fs) { wait(sc_core::sc_time::from_value(fs)); }
  std::function<void(Driver&)> body_;
};

// A process outside the scheduler, woken by its own timed event, that logs with id -1.
struct Outsider : sc_core::sc_module {
  SC_HAS_PROCESS(Outsider);
  Outsider(const sc_core::sc_module_name& name, std::vector<Wake>& log) : sc_core::sc_module(name), log_(log) {
    SC_METHOD(woke);
    sensitive << event_;
    dont_initialize();
  }
  void woke() {
    const TimeFs now = sc_core::sc_time_stamp().value();
    log_.push_back(Wake{now, sc_core::sc_delta_count(), -1});
    if (then) then();
  }
  sc_core::sc_event event_;
  std::function<void()> then;
  std::vector<Wake>& log_;
};

}  // namespace

TEST_CASE("wake-ups at one instant run in descending index order and a cancelled one does not run") {
  std::vector<Wake> log;
  DeviceScheduler scheduler("scheduler");
  auto clients = make_clients(4, log, &scheduler);
  std::vector<sc_core::sc_event> noise(64);
  // At 0: the clients ask for 100 fs in reverse order, client 0 also for 300 fs (ignored: it is due earlier) and
  // client 1 for 50 fs, then cancels. At 150 fs: the clients ask for 400 fs in forward order, client 2 first for
  // 500 fs and then for 400 fs (the earlier replaces it). Unrelated timed events at 100 fs and 400 fs disturb the
  // kernel's event heap.
  Driver driver("driver", [&](Driver& self) {
    for (auto& event : noise) event.notify(sc_core::sc_time::from_value(100));
    for (auto it = clients.rbegin(); it != clients.rend(); ++it) (*it)->wake.notify_at(100);
    clients[0]->wake.notify_at(300);
    clients[1]->wake.notify_at(50);
    clients[1]->wake.cancel();
    self.pause_fs(150);
    for (std::size_t i = 0; i < noise.size(); i += 2) noise[i].notify(sc_core::sc_time::from_value(250));
    clients[2]->wake.notify_at(500);
    for (auto& client : clients) client->wake.notify_at(400);
  });
  sc_core::sc_start();
  CHECK(ids_at(log, 50).empty());  // cancelled
  CHECK(ids_at(log, 100) == std::vector<int>{3, 2, 0});
  CHECK(ids_at(log, 300).empty());  // client 0's 300 fs request came while it was due at 100 fs
  CHECK(ids_at(log, 400) == std::vector<int>{3, 2, 1, 0});
  CHECK(ids_at(log, 500).empty());  // client 2's 500 fs request was replaced by its 400 fs one
}

TEST_CASE("a client asked for now during a round runs in the next round one delta later the last asked first") {
  std::vector<Wake> log;
  DeviceScheduler scheduler("scheduler");
  auto clients = make_clients(4, log, &scheduler);
  // At 100 fs all four are due and run 3, 2, 1, 0. Client 1 asks client 3 (it ran) and then client 0 (still to run
  // in this round: it runs again in the next), and the next round runs them the last asked first: 0, 3. There,
  // client 3 asks for itself once more, for a third round.
  clients[1]->actions[100] = [&] {
    clients[3]->wake.notify_at(100);
    clients[0]->wake.notify_at(100);
  };
  int client_3_runs = 0;
  clients[3]->actions[100] = [&] {
    if (++client_3_runs == 2) clients[3]->wake.notify_at(100);
  };
  Driver driver("driver", [&](Driver&) {
    for (auto& client : clients) client->wake.notify_at(100);
  });
  sc_core::sc_start();
  CHECK(ids_at(log, 100) == std::vector<int>{3, 2, 1, 0, 0, 3, 3});
  REQUIRE(log.size() == 7);
  for (std::size_t i = 1; i < 4; ++i) CHECK(log[i].delta == log[0].delta);
  CHECK(log[4].delta == log[0].delta + 1);
  CHECK(log[5].delta == log[0].delta + 1);
  CHECK(log[6].delta == log[0].delta + 2);
}

TEST_CASE("processes outside the scheduler woken at the same instant run before its clients, and may wake them") {
  std::vector<Wake> log;
  Outsider before("before", log);
  DeviceScheduler scheduler("scheduler");
  auto clients = make_clients(3, log, &scheduler);
  Outsider after("after", log);
  // The outsiders' events are notified before and after the clients' requests, so that the kernel's heap holds
  // them on either side of the scheduler's event. Client 1 is due again at 200 fs, when an outsider asks client 2
  // for now and client 0 for 250 fs: requests from outside a round.
  after.then = [&] {
    if (sc_core::sc_time_stamp().value() != 200) return;
    clients[2]->wake.notify_at(200);
    clients[0]->wake.notify_at(250);
  };
  Driver driver("driver", [&](Driver&) {
    before.event_.notify(sc_core::sc_time::from_value(100));
    for (auto& client : clients) client->wake.notify_at(100);
    after.event_.notify(sc_core::sc_time::from_value(100));
  });
  clients[1]->actions[100] = [&] { clients[1]->wake.notify_at(200); };
  Driver later("later", [&](Driver& self) {
    self.pause_fs(150);
    after.event_.notify(sc_core::sc_time::from_value(50));
  });
  sc_core::sc_start();
  CHECK(ids_at(log, 100) == std::vector<int>{-1, -1, 2, 1, 0});
  // At 200: the outsider, then client 2 (asked by the outsider) and client 1 (due by time) in one round.
  CHECK(ids_at(log, 200) == std::vector<int>{-1, 2, 1});
  CHECK(ids_at(log, 250) == std::vector<int>{0});
}

TEST_CASE("without a scheduler a wake handle wakes its client through the client's own process") {
  std::vector<Wake> log;
  auto clients = make_clients(2, log, nullptr);
  Driver driver("driver", [&](Driver& self) {
    clients[0]->wake.notify_at(100);
    clients[1]->wake.notify_at(100);
    clients[1]->wake.cancel();
    self.pause_fs(100);
    clients[1]->wake.notify_at(100);  // now: one delta later
  });
  sc_core::sc_start();
  CHECK(ids_at(log, 100) == std::vector<int>{0, 1});
  REQUIRE(log.size() == 2);
  CHECK(log[1].delta > log[0].delta);
}

TEST_CASE("random requests and cancels on 37 clients run each client at its earliest pending time") {
  // The winner tree against a plain list: the driver acts at odd femtoseconds and asks for even ones, so the
  // reference needs no rule for requests at the instant a client runs.
  constexpr int kClients = 37;
  constexpr TimeFs kNoWake = kNever;
  std::vector<Wake> log;
  DeviceScheduler scheduler("scheduler");
  auto clients = make_clients(kClients, log, &scheduler);
  std::vector<Wake> expected;
  std::vector<TimeFs> pending(kClients, kNoWake);
  const auto run_until = [&](TimeFs end_fs) {
    for (;;) {
      TimeFs next = kNoWake;
      for (const TimeFs at : pending) next = std::min(next, at);
      if (next >= end_fs) return;
      for (int c = kClients - 1; c >= 0; --c) {
        if (pending[c] != next) continue;
        expected.push_back(Wake{next, 0, c});
        pending[c] = kNoWake;
      }
    }
  };
  std::uint64_t state = 12345;
  const auto next_random = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  Driver driver("driver", [&](Driver& self) {
    TimeFs now = 1;
    self.pause_fs(1);
    for (int step = 0; step < 400; ++step) {
      run_until(now);
      for (int request = 0; request < 6; ++request) {
        const auto c = static_cast<int>(next_random(kClients));
        if (next_random(8) == 0) {
          clients[c]->wake.cancel();
          pending[c] = kNoWake;
          continue;
        }
        const TimeFs at = now + 1 + 2 * next_random(20);
        clients[c]->wake.notify_at(at);
        pending[c] = std::min(pending[c], at);
      }
      const TimeFs pause = 2 * (1 + next_random(6));
      self.pause_fs(pause);
      now += pause;
    }
    run_until(kNoWake);
  });
  sc_core::sc_start();
  REQUIRE(log.size() == expected.size());
  for (std::size_t i = 0; i < log.size(); ++i) {
    CHECK(log[i].at_fs == expected[i].at_fs);
    CHECK(log[i].id == expected[i].id);
  }
}
