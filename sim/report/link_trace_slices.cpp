#include "sim/report/link_trace_slices.h"

#include <algorithm>

namespace roofsim {

std::vector<std::vector<LinkTraceSlice>> link_trace_slices(const std::vector<LinkBusy>& links,
                                                           std::uint64_t max_events) {
  std::uint64_t events = 0, busy_links = 0;
  for (const auto& link : links) {
    events += link.periods.size();
    busy_links += link.periods.empty() ? 0 : 1;
  }
  // The gap length at or below which gaps close: none close within the budget.
  Seconds close_at = -1;
  const std::uint64_t budget = std::max(max_events, busy_links);
  if (events > budget) {
    std::vector<Seconds> gaps;
    gaps.reserve(events - busy_links);
    for (const auto& link : links) {
      const auto& p = link.periods;
      for (std::size_t i = 1; i < p.size(); ++i) gaps.push_back(p[i].first - p[i - 1].second);
    }
    // Closing the `events - budget` shortest gaps is enough; gaps as long as the last of them close too.
    const auto nth = gaps.begin() + static_cast<std::ptrdiff_t>(events - budget - 1);
    std::nth_element(gaps.begin(), nth, gaps.end());
    close_at = *nth;
  }
  std::vector<std::vector<LinkTraceSlice>> slices(links.size());
  for (std::size_t l = 0; l < links.size(); ++l) {
    for (const auto& [begin, end] : links[l].periods) {
      auto& out = slices[l];
      if (!out.empty() && begin - out.back().end_s <= close_at) {
        out.back().end_s = end;
        out.back().busy_s += end - begin;
        ++out.back().periods;
      } else {
        out.push_back(LinkTraceSlice{begin, end, end - begin, 1});
      }
    }
  }
  return slices;
}

}  // namespace roofsim
