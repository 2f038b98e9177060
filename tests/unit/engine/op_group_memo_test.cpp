#include "sim/engine/op_group_memo.h"

#include <doctest/doctest.h>

#include "sim/engine/op_memo.h"

namespace roofsim {

namespace {

// A group of two members: the first at the group's start, the second `offset_fs` later.
std::unique_ptr<OpGroupRecord> group_of(TimeFs first_fs, TimeFs second_fs, TimeFs offset_fs = 100,
                                        std::size_t second_delta = 1, const std::string& second_kind = "gemm") {
  auto group = std::make_unique<OpGroupRecord>();
  for (const auto& [delta, offset, duration, kind] :
       {std::tuple{std::size_t{0}, TimeFs{0}, first_fs, std::string("gemm")},
        std::tuple{second_delta, offset_fs, second_fs, second_kind}}) {
    OpGroupMember m;
    m.delta = delta;
    m.offset_fs = offset;
    m.kind_key = kind;
    m.record = std::make_unique<OpRecord>();
    m.record->duration_fs = duration;
    group->members.push_back(std::move(m));
  }
  group->duration_fs = std::max(first_fs, offset_fs + second_fs);
  return group;
}

}  // namespace

TEST_CASE("two instances of an overlap group agree when every member's time is within 1% of the first's") {
  const auto first = group_of(10000, 5000);
  CHECK(groups_agree(*first, *group_of(10100, 4950)));        // 1.0% and 1.0%
  CHECK_FALSE(groups_agree(*first, *group_of(10101, 5000)));  // the first member 1.01% longer
  CHECK_FALSE(groups_agree(*first, *group_of(10000, 4949)));  // the second 1.02% shorter
  // The pattern: another op at that place in the graph, or the same op elsewhere, is another group.
  CHECK_FALSE(groups_agree(*first, *group_of(10000, 5000, 100, 2)));
  CHECK_FALSE(groups_agree(*first, *group_of(10000, 5000, 100, 1, "softmax")));
}

TEST_CASE(
    "the group store replays the median of a key's last instances once another agrees, never one instance twice") {
  OpGroupStore store(3);
  const int graph_a = 0, graph_b = 0;
  store.insert("k", group_of(10000, 5000), OpInstance{&graph_a, 7});
  CHECK(store.find("k") == nullptr);
  // The same instance again (a symmetric rank simulating it beside the first): no second instance.
  store.insert("k", group_of(10000, 5000), OpInstance{&graph_a, 7});
  CHECK(store.find("k") == nullptr);
  // Two agreeing instances are not yet three.
  store.insert("k", group_of(10050, 5000), OpInstance{&graph_a, 19});
  CHECK(store.find("k") == nullptr);
  // Another pipeline stage's instance makes three: their median (by the group's time) is served, not the first.
  store.insert("k", group_of(10090, 5000), OpInstance{&graph_b, 19});
  REQUIRE(store.find("k") != nullptr);
  CHECK(store.find("k")->members.front().record->duration_fs == 10050);
  CHECK(store.size() == 1);
}

TEST_CASE("a group whose instances disagree with their median is not replayed until they agree") {
  OpGroupStore store(3);
  const int graph = 0;
  store.insert("k", group_of(10000, 5000), OpInstance{&graph, 1});
  store.insert("k", group_of(11000, 5000), OpInstance{&graph, 2});
  store.insert("k", group_of(12000, 5000), OpInstance{&graph, 3});
  CHECK(store.find("k") == nullptr);
  // The last three: 11000, 12000, 12050; the median 12000 agrees with 12050.
  store.insert("k", group_of(12050, 5000), OpInstance{&graph, 4});
  REQUIRE(store.find("k") != nullptr);
  CHECK(store.find("k")->members.front().record->duration_fs == 12000);
}

TEST_CASE("a group's time splits as its critical unit's: members' busy time summed, residency up to the group's") {
  // Two members on two units over a group of 1000 fs. Unit 0 holds both at once (resident 700 + 600, clipped to
  // 1000) and computes 400 + 300; unit 1 holds one for 500.
  OpRecord a, b;
  a.units.resize(2);
  b.units.resize(2);
  a.units[0].resident_fs = 700;
  a.units[0].busy_fs = 400;
  b.units[0].resident_fs = 600;
  b.units[0].busy_fs = 200;
  b.units[0].waited_fs[1] = 100;  // the matrix engine held up by the vector engine: compute too
  a.units[1].resident_fs = 500;
  a.units[1].busy_fs = 500;
  a.latency_fs = 1;
  b.latency_fs = 0;
  a.queueing_fs = 3;  // the stall is a quarter latency
  const UnitTimeShares shares = group_time_shares({&a, &b}, 1000);
  CHECK(shares.compute == doctest::Approx(0.7));
  CHECK(shares.latency == doctest::Approx(0.3 * 0.25));
  CHECK(shares.bandwidth == doctest::Approx(0.3 * 0.75));
  // No units: nothing to split.
  const UnitTimeShares none = group_time_shares({}, 1000);
  CHECK(none.compute == 0);
}

TEST_CASE("a member's part of the group's clock course and power profile") {
  const std::vector<ClockSegment> course = {{100, 2e9}, {200, 1e9}, {50, 1.5e9}};
  const auto part = course_between(course, 50, 320);
  REQUIRE(part.size() == 3);
  CHECK(part[0].duration_fs == 50);
  CHECK(part[0].clock_hz == 2e9);
  CHECK(part[1].duration_fs == 200);
  CHECK(part[2].duration_fs == 20);
  CHECK(part[2].clock_hz == 1.5e9);
  // Past the course's end the last clock holds; an empty interval is empty.
  const auto tail = course_between(course, 340, 400);
  REQUIRE(tail.size() == 1);
  CHECK(tail[0].duration_fs == 60);
  CHECK(tail[0].clock_hz == 1.5e9);
  CHECK(course_between(course, 10, 10).empty());

  // Half the energy over the first 100 fs, half over the next 300.
  const std::vector<ProgressKnot> profile = {{0, 0.0}, {100, 0.5}, {400, 1.0}};
  const auto member = profile_between(profile, 50, 250);
  // From 0.25 at 50 to 0.75 at 250: 0.25 by 100 (half its share), the rest at an even pace.
  REQUIRE(member.size() == 3);
  CHECK(member[0].at_fs == 0);
  CHECK(member[0].done == 0.0);
  CHECK(member[1].at_fs == 50);
  CHECK(member[1].done == doctest::Approx(0.5));
  CHECK(member[2].at_fs == 200);
  CHECK(member[2].done == 1.0);
  CHECK(profile_between({}, 0, 100).empty());
  CHECK(profile_between({{0, 0.0}, {100, 1.0}, {200, 1.0}}, 120, 180).empty());  // spends nothing there
}

TEST_CASE("a group member's progress follows its own energy as the governor read it, slow where it shares the units") {
  // Read at samples ending 100, 200 and 300 fs: beside another member it spent 1 J by 200 fs, alone 3 J more by 300.
  // Over [50, 250] it spent 0.5 J by 100 (linear from none at its start), 1 by 200 and 2.5 by 250.
  const std::vector<std::pair<TimeFs, double>> energies = {{100, 0.5}, {200, 1.0}, {300, 4.0}};
  const auto knots = energy_progress(energies, 50, 250);
  REQUIRE(knots.size() == 4);
  CHECK(knots[0].at_fs == 0);
  CHECK(knots[0].done == 0.0);
  CHECK(knots[1].at_fs == 50);
  CHECK(knots[1].done == doctest::Approx(0.5 / 2.5));
  CHECK(knots[2].at_fs == 150);
  CHECK(knots[2].done == doctest::Approx(1.0 / 2.5));
  CHECK(knots[3].at_fs == 200);
  CHECK(knots[3].done == 1.0);
  // Nothing spent over the member's time: no profile (an even pace).
  CHECK(energy_progress({}, 0, 640).empty());
  CHECK(energy_progress({{100, 0.0}, {200, 0.0}}, 0, 200).empty());
}

TEST_CASE(
    "a replayed group's member starts on time within its launch latency's stretch, one launched from outside not") {
  // With the group's start: a few fs of rounding over a 1 us group, not 20 ps.
  CHECK(starts_on_time(1000000, 1000000, 0, 1000000000));
  CHECK(starts_on_time(1000010, 1000000, 0, 1000000000));
  CHECK_FALSE(starts_on_time(1020000, 1000000, 0, 1000000000));
  // 100 us into the group: within 0.1% of the offset (45 ns: a 3 us launch latency at a clock 1.5% off), not 1 us.
  const TimeFs offset_fs = 100000000000;
  CHECK(starts_on_time(offset_fs + 45000000, offset_fs, offset_fs, 1000000000000));
  CHECK_FALSE(starts_on_time(offset_fs + 1000000000, offset_fs, offset_fs, 1000000000000));
}

}  // namespace roofsim
