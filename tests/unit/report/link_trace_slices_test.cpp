// A cluster trace's link slices within a budget: the shortest gaps close first, on every link, and the merged slices
// keep the busy time they stand for.
#include <doctest/doctest.h>

#include "sim/report/link_trace_slices.h"

using namespace roofsim;

namespace {

// A link (unnamed: the slices do not read names) with these busy periods.
LinkBusy link(std::vector<std::pair<Seconds, Seconds>> periods) {
  return LinkBusy{"", std::move(periods)};
}

std::uint64_t count(const std::vector<std::vector<LinkTraceSlice>>& slices) {
  std::uint64_t n = 0;
  for (const auto& link : slices) n += link.size();
  return n;
}

Seconds busy(const std::vector<std::vector<LinkTraceSlice>>& slices) {
  Seconds s = 0;
  for (const auto& link : slices)
    for (const auto& slice : link) s += slice.busy_s;
  return s;
}

}  // namespace

TEST_CASE("link slices within the budget are the periods themselves") {
  const auto slices = link_trace_slices({link({{0, 1}, {2, 3}}), link({{0.5, 4}})}, 3);
  REQUIRE(slices.size() == 2);
  CHECK(count(slices) == 3);
  CHECK(slices[0][1].begin_s == 2);
  CHECK(slices[0][1].periods == 1);
  CHECK(slices[1][0].busy_s == 3.5);
}

TEST_CASE("above the budget the shortest gaps close first, across links, keeping the busy time") {
  // Gaps: link a 1.0 and 0.25, link b 0.5 and 2.0. A budget of 4 of the 6 periods closes the two shortest.
  const auto slices = link_trace_slices({link({{0, 1}, {2, 3}, {3.25, 4}}), link({{0, 1}, {1.5, 2}, {4, 5}})}, 4);
  CHECK(count(slices) == 4);
  REQUIRE(slices[0].size() == 2);
  CHECK(slices[0][1].begin_s == 2);
  CHECK(slices[0][1].end_s == 4);
  CHECK(slices[0][1].periods == 2);
  CHECK(slices[0][1].busy_s == doctest::Approx(1.75));
  REQUIRE(slices[1].size() == 2);
  CHECK(slices[1][0].end_s == 2);
  CHECK(slices[1][1].begin_s == 4);
  CHECK(busy(slices) == doctest::Approx(2.75 + 2.5));
}

TEST_CASE("a budget below one slice per busy link keeps one slice per link") {
  const auto slices = link_trace_slices({link({{0, 1}, {2, 3}}), link({{0, 1}, {5, 6}}), link({})}, 1);
  CHECK(slices[0].size() == 1);
  CHECK(slices[1].size() == 1);
  CHECK(slices[2].empty());
  CHECK(slices[1][0].busy_s == 2);
}
