#pragma once
// A cluster trace's link tracks within a budget of events. A thousand-rank training step keeps tens of millions of
// link busy periods (GPT-3 175B on 128x8 H100: a 2.6 GB trace.json that no trace viewer opens); above the budget the
// shortest idle gaps are closed, on every link at once, until the periods fit, and each merged slice says how much of
// it the link was really busy. Which gaps close depends on the periods alone: the same run gives the same trace.
#include <cstdint>
#include <vector>

#include "sim/engine/cluster_run.h"

namespace roofsim {

struct LinkTraceSlice {
  Seconds begin_s = 0;
  Seconds end_s = 0;
  Seconds busy_s = 0;         // busy time inside [begin_s, end_s): its length unless gaps were closed
  std::uint64_t periods = 1;  // busy periods it stands for
};

// Each link's busy periods are disjoint and in time order (LinkBusy). Returns one slice list per link holding at most
// `max_events` slices in all (and never fewer than one per link that was busy): every gap no longer than the
// smallest length that brings the count within the budget is closed.
[[nodiscard]] std::vector<std::vector<LinkTraceSlice>> link_trace_slices(const std::vector<LinkBusy>& links,
                                                                         std::uint64_t max_events);

}  // namespace roofsim
