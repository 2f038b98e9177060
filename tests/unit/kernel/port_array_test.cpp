// PortArray against the simplest thing that could work: a port reserved alone is a BusyUntil (finish times and busy
// time exactly as the single resource computes them), and a run of ports, or a range of lines spread over the banks
// segment by segment, ends exactly as a loop over its lines with std::max says, whichever clone of the vectorized
// loop the host runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "models/kernel/busy_until.h"
#include "models/kernel/port_array.h"

using namespace roofsim;

namespace {

// Free times of the ports and their total busy time, reserved one line at a time.
struct PerLineReference {
  explicit PerLineReference(std::size_t ports) : free_fs(ports, 0) {}
  TimeFs reserve(std::size_t port, TimeFs now, TimeFs duration) {
    free_fs[port] = std::max(now, free_fs[port]) + duration;
    busy_fs += duration;
    return free_fs[port];
  }
  std::vector<TimeFs> free_fs;
  TimeFs busy_fs = 0;
};

void check_same(const PortArray& ports, const PerLineReference& reference) {
  REQUIRE(ports.size() == reference.free_fs.size());
  for (std::size_t p = 0; p < ports.size(); ++p) CHECK(ports.free_fs(p) == reference.free_fs[p]);
  CHECK(ports.busy_fs() == reference.busy_fs);
}

}  // namespace

TEST_CASE("a port reserved alone computes what a BusyUntil computes") {
  std::mt19937_64 random(11);
  constexpr std::size_t kPorts = 5;
  PortArray ports(kPorts);
  std::vector<BusyUntil> resources(kPorts);
  TimeFs now = 0;
  for (int i = 0; i < 20000; ++i) {
    now += random() % 1000;  // arrivals in order, as a unit's or a level's requests come
    const std::size_t port = random() % kPorts;
    const TimeFs duration = random() % 3000;
    CHECK(ports.reserve(port, now, duration) == resources[port].reserve(now, duration));
  }
  TimeFs busy = 0;
  for (std::size_t p = 0; p < kPorts; ++p) {
    CHECK(ports.free_fs(p) == resources[p].free_at());
    busy += resources[p].busy_fs();
  }
  CHECK(ports.busy_fs() == busy);
}

TEST_CASE("a run of ports ends as the per-line loop says, at any length and offset") {
  std::mt19937_64 random(12);
  for (const std::size_t size : {1, 3, 4, 7, 8, 16, 33, 96}) {
    PortArray ports(size);
    PerLineReference reference(size);
    TimeFs now = 0;
    for (int i = 0; i < 3000; ++i) {
      now += random() % 500;
      const std::size_t first = random() % size;
      const std::size_t n = 1 + random() % (size - first);
      const TimeFs duration = random() % 2000;
      TimeFs latest = now;
      for (std::size_t p = first; p < first + n; ++p) latest = std::max(latest, reference.reserve(p, now, duration));
      CHECK(ports.reserve_run(first, n, now, duration) == latest);
    }
    check_same(ports, reference);
  }
}

TEST_CASE("a random range of lines over the banks, segment by segment, ends as the per-line loop says") {
  // Line l of a range lies on bank l mod banks; whole lines take `line_fs`, a partial first or last line its share.
  std::mt19937_64 random(13);
  constexpr Bytes kLine = 128;
  for (const std::size_t banks : {2, 5, 8, 48}) {
    PortArray ports(banks);
    PerLineReference reference(banks);
    const TimeFs line_fs = 64;
    TimeFs now = 0;
    for (int i = 0; i < 2000; ++i) {
      now += random() % 400;
      const Bytes address = random() % (1 << 20);
      const Bytes bytes = 1 + random() % (64 * kLine);
      const auto time_of = [&](Bytes part) { return line_fs * part / kLine; };
      TimeFs expected = now;
      for (Bytes at = address; at < address + bytes;) {
        const Bytes part = std::min(address + bytes, (at / kLine + 1) * kLine) - at;
        expected = std::max(expected, reference.reserve((at / kLine) % banks, now, time_of(part)));
        at += part;
      }
      TimeFs done = now;
      Bytes at = address;
      const Bytes end = address + bytes;
      if (at % kLine != 0 || end - at < kLine) {
        const Bytes part = std::min(end - at, kLine - at % kLine);
        done = std::max(done, ports.reserve((at / kLine) % banks, now, time_of(part)));
        at += part;
      }
      while (end - at >= kLine) {
        const std::size_t bank = (at / kLine) % banks;
        const std::size_t n = std::min<std::size_t>((end - at) / kLine, banks - bank);
        done = std::max(done, ports.reserve_run(bank, n, now, line_fs));
        at += n * kLine;
      }
      if (at < end) done = std::max(done, ports.reserve((at / kLine) % banks, now, time_of(end - at)));
      CHECK(done == expected);
    }
    check_same(ports, reference);
  }
}
