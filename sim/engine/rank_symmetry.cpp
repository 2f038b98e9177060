#include "sim/engine/rank_symmetry.h"

namespace roofsim {

RankClasses rank_classes(std::uint64_t ranks, bool collapse) {
  RankClasses classes;
  classes.class_of_rank.assign(ranks, 0);
  if (collapse) {
    classes.members.emplace_back();
    for (std::uint64_t r = 0; r < ranks; ++r) classes.members[0].push_back(r);
    return classes;
  }
  for (std::uint64_t r = 0; r < ranks; ++r) {
    classes.class_of_rank[r] = r;
    classes.members.push_back({r});
  }
  return classes;
}

}  // namespace roofsim
