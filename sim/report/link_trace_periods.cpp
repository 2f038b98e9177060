#include "sim/report/link_trace_periods.h"

#include <algorithm>

namespace roofsim {

std::vector<std::vector<LinkTraceSlice>> link_trace_slices(
    const std::vector<const std::vector<std::pair<Seconds, Seconds>>*>& links, std::uint64_t max_events) {
  std::uint64_t events = 0, busy_links = 0;
  std::vector<Seconds> gaps;
  for (const auto* periods : links) {
    events += periods->size();
    busy_links += periods->empty() ? 0 : 1;
  }
  // The gap length at or below which gaps close: none close within the budget.
  Seconds close_at = -1;
  const std::uint64_t budget = std::max(max_events, busy_links);
  if (events > budget) {
    gaps.reserve(events - busy_links);
    for (const auto* periods : links) {
      for (std::size_t i = 1; i < periods->size(); ++i) gaps.push_back((*periods)[i].first - (*periods)[i - 1].second);
    }
    // Closing the `events - budget` shortest gaps is enough; gaps as long as the last of them close too.
    const auto nth = gaps.begin() + static_cast<std::ptrdiff_t>(events - budget - 1);
    std::nth_element(gaps.begin(), nth, gaps.end());
    close_at = *nth;
  }
  std::vector<std::vector<LinkTraceSlice>> slices(links.size());
  for (std::size_t l = 0; l < links.size(); ++l) {
    for (const auto& [begin, end] : *links[l]) {
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
