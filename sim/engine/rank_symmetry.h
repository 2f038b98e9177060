#pragma once
// Scale by symmetry. In an SPMD run every rank runs the same graph on the same device type, so
// ranks differ only through the network: when their collectives finish. The network is simulated for all ranks;
// compute needs one simulated device per class of ranks that see the same finish times. `collapsed` puts all ranks
// in one class whose representative (rank 0) waits, at each collective, for the last of its members' groups; the
// run checks afterwards that the groups of every collective finished together (what makes the members symmetric)
// and says so. `full` simulates every rank.
//
// A pipeline's stages run different parts of the schedule (the first stage never waits for a receive), so they are
// not symmetric with one another; the ranks of one stage (its tensor- and data-parallel members) are, and
// `by_stage` makes one class per stage (stage = rank / stride mod stages), checked the same way per class.
#include <cstdint>
#include <string>
#include <vector>

namespace roofsim {

struct RankClasses {
  std::vector<std::size_t> class_of_rank;
  std::vector<std::vector<std::uint64_t>> members;  // per class, ascending; members[c][0] is the representative
  [[nodiscard]] std::size_t count() const { return members.size(); }
};

[[nodiscard]] RankClasses rank_classes(std::uint64_t ranks, bool collapse);

// One class per pipeline stage: class s holds the ranks r with r / stride mod stages = s.
[[nodiscard]] RankClasses rank_classes_by_stage(std::uint64_t ranks, std::uint64_t stages, std::uint64_t stride);

}  // namespace roofsim
