#include "sim/engine/rank_symmetry.h"

#include <stdexcept>

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

RankClasses rank_classes_by_stage(std::uint64_t ranks, std::uint64_t stages, std::uint64_t stride) {
  if (stages == 0 || stride == 0 || ranks % (stages * stride) != 0) {
    throw std::invalid_argument("stages x stride must divide the ranks");
  }
  RankClasses classes;
  classes.members.resize(stages);
  classes.class_of_rank.resize(ranks);
  for (std::uint64_t r = 0; r < ranks; ++r) {
    const std::uint64_t stage = r / stride % stages;
    classes.class_of_rank[r] = stage;
    classes.members[stage].push_back(r);
  }
  return classes;
}

}  // namespace roofsim
