#pragma once
// What a message leaves on a link direction: its reservation, and the totals a link keeps of them.
#include <cstdint>

#include "models/net/packet_train.h"
#include "models/net/schedule.h"

namespace roofsim::net {

using CollectiveId = std::uint32_t;

struct LinkStats {
  Bytes bytes = 0;
  std::uint64_t messages = 0;
  TimeFs busy_fs = 0;  // time the link direction was reserved (overheads, packets and the gaps between them)
};

// One message's reservation of one link direction: from its first packet's start to its last packet's end.
struct LinkReservation {
  LinkId link = 0;
  CollectiveId collective = 0;
  OpId op = 0;
  TimeFs begin_fs = 0;
  TimeFs end_fs = 0;
  Bytes bytes = 0;
};

}  // namespace roofsim::net
