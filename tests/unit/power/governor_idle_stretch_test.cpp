// An idle stretch judged at once: GovernorPolicy::windows_ended() over N windows of the same measured power leaves the
// policy exactly as N window_ended() calls do (state, decision, window start, and the windows kept for the next step
// up), and quiet_windows() names the first window of the stretch that decides a change.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "models/power/governor_policy.h"

using namespace roofsim;

namespace {

constexpr TimeFs kUs = 1'000'000'000;  // fs per microsecond

GovernorParams params(Watts cap_w) {
  // Five states of the shape of the bundled H100 file; 10 us windows, 1 us reaction, 8 windows before a step up.
  return {cap_w, 10 * kUs, 1 * kUs, {{0.99e9, 0.70}, {1.2e9, 0.75}, {1.5e9, 0.83}, {1.755e9, 0.89}, {1.98e9, 0.95}},
          0.95,  8};
}

PowerSplit load(Watts dynamic_w, Watts static_w = 140, Watts memory_w = 60) {
  PowerSplit p;
  p.domain_dynamic_w = dynamic_w;
  p.domain_static_w = static_w;
  p.other_static_w = memory_w;
  return p;
}

// Drives a policy one wake at a time: judges a window of `measured`, or applies the decided change.
std::optional<std::size_t> step(GovernorPolicy& policy, const PowerSplit& measured) {
  const TimeFs now = policy.next_wake_fs();
  if (policy.change_pending()) return policy.apply(now);
  return policy.window_ended(now, measured);
}

// The same observable state, and the same decisions on a common future (which tells the windows kept alike).
void check_same(GovernorPolicy& a, GovernorPolicy& b) {
  CHECK(a.state() == b.state());
  CHECK(a.change_pending() == b.change_pending());
  CHECK(a.window_start_fs() == b.window_start_fs());
  CHECK(a.next_wake_fs() == b.next_wake_fs());
  const std::vector<Watts> future = {300, 310, 290, 305, 300, 295, 300, 310, 120, 100, 90,  100, 100, 95,  100,
                                     100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100};
  for (const Watts w : future) {
    CHECK(step(a, load(w)) == step(b, load(w)));
    CHECK(a.state() == b.state());
    CHECK(a.next_wake_fs() == b.next_wake_fs());
  }
}

}  // namespace

TEST_CASE("an idle stretch after throttling: one windows_ended() call equals the window-by-window steps") {
  const PowerSplit idle = load(0);
  for (const std::uint64_t stretch : {1ULL, 3ULL, 7ULL, 8ULL, 9ULL, 1000ULL, 1000000ULL}) {
    INFO("stretch of " << stretch << " windows");
    GovernorPolicy stepped(params(400)), jumped(params(400));
    // A heavy load throttles both to a low state; a lighter one leaves part of the windows kept at that state.
    for (int i = 0; i < 40; ++i) (void)step(stepped, load(420));
    for (int i = 0; i < 40; ++i) (void)step(jumped, load(420));
    for (int i = 0; i < 3; ++i) (void)step(stepped, load(150));
    for (int i = 0; i < 3; ++i) (void)step(jumped, load(150));
    while (stepped.change_pending()) (void)step(stepped, idle);
    while (jumped.change_pending()) (void)step(jumped, idle);
    REQUIRE(stepped.state() < 4);
    check_same(stepped, jumped);

    // Window by window: the idle windows until the first that decides (a step up), at most `stretch`.
    std::uint64_t quiet = 0;
    std::optional<std::size_t> decided;
    while (quiet < stretch) {
      decided = stepped.window_ended(stepped.next_wake_fs(), idle);
      if (decided) break;
      ++quiet;
    }
    // At once: quiet_windows() finds the same count, and one call judges the stretch up to that window.
    CHECK(jumped.quiet_windows(idle, stretch) == quiet);
    const std::uint64_t windows = decided ? quiet + 1 : stretch;
    CHECK(jumped.windows_ended(jumped.window_start_fs() + windows * 10 * kUs, windows, idle) == decided);
    check_same(stepped, jumped);
  }
}

TEST_CASE("an idle stretch at a fixed point: a million windows in one call, the same state as a million calls") {
  const PowerSplit idle = load(0);
  const std::uint64_t stretch = 1000000;
  for (const Watts cap : {0.0, 150.0, 400.0}) {
    INFO("cap " << cap << " W");
    // Uncapped; capped under the idle power (the governor sits at the lowest state); capped with room (the top).
    GovernorPolicy stepped(params(cap)), jumped(params(cap));
    for (int i = 0; i < 200; ++i) (void)step(stepped, idle);
    for (int i = 0; i < 200; ++i) (void)step(jumped, idle);
    while (stepped.change_pending()) (void)step(stepped, idle);
    while (jumped.change_pending()) (void)step(jumped, idle);
    CHECK(jumped.quiet_windows(idle, stretch) == stretch);
    bool decided = false;
    for (std::uint64_t i = 0; i < stretch; ++i) decided = decided || stepped.window_ended(stepped.next_wake_fs(), idle);
    CHECK_FALSE(decided);
    CHECK_FALSE(jumped.windows_ended(jumped.window_start_fs() + stretch * 10 * kUs, stretch, idle));
    check_same(stepped, jumped);
  }
}

TEST_CASE("windows_ended() refuses a stretch that does not end on a window or in which a change would be decided") {
  GovernorPolicy policy(params(400));
  for (int i = 0; i < 40; ++i) (void)step(policy, load(420));
  while (policy.change_pending()) (void)step(policy, load(0));
  const std::uint64_t quiet = policy.quiet_windows(load(0), 100);
  REQUIRE(quiet < 100);
  CHECK_THROWS_AS(policy.windows_ended(policy.window_start_fs() + 15 * kUs, 1, load(0)), std::logic_error);
  CHECK_THROWS_AS(policy.windows_ended(policy.window_start_fs() + (quiet + 2) * 10 * kUs, quiet + 2, load(0)),
                  std::logic_error);
}
