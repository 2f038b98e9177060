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

TEST_CASE("the group store replays a key once two distinct instances agree, never from one instance twice") {
  OpGroupStore store;
  const int graph_a = 0, graph_b = 0;
  store.insert("k", group_of(10000, 5000), OpInstance{&graph_a, 7});
  CHECK(store.find("k") == nullptr);
  // The same instance again (a symmetric rank simulating it beside the first): no second instance.
  store.insert("k", group_of(10000, 5000), OpInstance{&graph_a, 7});
  CHECK(store.find("k") == nullptr);
  // Another instance that disagrees takes the first's place.
  store.insert("k", group_of(11000, 5000), OpInstance{&graph_a, 19});
  CHECK(store.find("k") == nullptr);
  // Another pipeline stage's instance agrees with it: the kept record (the disagreeing one) is served.
  store.insert("k", group_of(11050, 5000), OpInstance{&graph_b, 19});
  REQUIRE(store.find("k") != nullptr);
  CHECK(store.find("k")->members.front().record->duration_fs == 11000);
  CHECK(store.size() == 1);
}

}  // namespace roofsim
