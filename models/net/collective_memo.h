#pragma once
// Memoized collectives, the plain part: what a schedule touches, in an order that does not depend on which devices
// play it, and what it did when it had all of that to itself.
//
// A collective's course depends only on its schedule, the links and reducers it uses and their state when it starts.
// Two collectives whose schedules match op for op, whose routes cross links of the same parameters in the same
// pattern (a link shared by two hops of one is shared by the matching hops of the other), and that each find every
// link and reducer they use idle at their start and keep them to themselves until they finish, take exactly the same
// time and make the same reservations, shifted in time and moved to the matching links. A thousand-GPU training step
// plays the same tensor-parallel allreduce on the NVLink of a hundred and twenty-eight nodes, tens of thousands of
// times over, each on links no other traffic crosses: one is simulated and the others are replayed, exactly.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/net/link_reservation.h"
#include "models/net/schedule.h"
#include "models/net/topology.h"

namespace roofsim::net {

// The links and reducers (devices and switches that reduce) a schedule uses, each at the index of its first use, and
// the key that two schedules share exactly when they would play alike on idle resources.
struct CollectiveFootprint {
  std::string key;
  std::vector<LinkId> links;
  std::vector<NodeId> reducers;
};

// One reservation of a recorded collective, relative to its start and to its footprint.
struct RecordedReservation {
  std::uint32_t link = 0;  // index into the footprint's links
  OpId op = 0;
  TimeFs begin_fs = 0;
  TimeFs end_fs = 0;
  Bytes bytes = 0;
};

// What a collective did on idle resources, relative to its start (times) and footprint (indices): the link totals
// and busy-until times a replay leaves follow from its reservations, a reducer's busy-until time from its last
// reduction.
struct CollectiveRecord {
  TimeFs duration_fs = 0;
  std::vector<RecordedReservation> reservations;  // in the order the links took them
  struct Reduction {
    std::uint32_t reducer = 0;  // index into the footprint's reducers
    TimeFs busy_until_fs = 0;
  };
  std::vector<Reduction> reductions;  // in the order they were queued
};

class CollectiveMemo {
 public:
  explicit CollectiveMemo(const Topology& topology);

  // Fills `footprint` for `schedule` (finalized).
  void footprint_of(const Schedule& schedule, CollectiveFootprint& footprint);

  // Builds the record of a collective that ran alone from `start_fs` to `finish_fs` from its reservations and
  // reductions, in absolute times and topology ids.
  struct Reduction {
    NodeId reducer;
    TimeFs busy_until_fs;
  };
  [[nodiscard]] std::unique_ptr<CollectiveRecord> make_record(const CollectiveFootprint& footprint, TimeFs start_fs,
                                                              TimeFs finish_fs,
                                                              const std::vector<LinkReservation>& reservations,
                                                              const std::vector<Reduction>& reductions);

  [[nodiscard]] const CollectiveRecord* find(const std::string& key) const {
    const auto it = records_.find(key);
    return it == records_.end() ? nullptr : it->second.get();
  }
  void insert(std::string key, std::unique_ptr<CollectiveRecord> record) {
    records_.try_emplace(std::move(key), std::move(record));
  }
  [[nodiscard]] std::size_t size() const { return records_.size(); }

 private:
  const Topology* topology_;
  // Per link and per vertex: its index in the footprint being built or read (kNone outside of it).
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> link_index_;
  std::vector<std::uint32_t> vertex_index_;
  std::unordered_map<std::string, std::unique_ptr<CollectiveRecord>> records_;
};

}  // namespace roofsim::net
