#include "sim/results/trace_data.h"

#include <algorithm>

namespace roofsim {

TraceCounter spread_bandwidth(const std::string& name, const std::vector<TraceOp>& ops,
                              const std::vector<Bytes>& bytes) {
  TraceCounter counter{name, "GB/s", {}};
  std::vector<Seconds> times;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].end_s <= ops[i].start_s || bytes[i] == 0) continue;
    times.push_back(ops[i].start_s);
    times.push_back(ops[i].end_s);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  for (const Seconds t : times) {
    double rate = 0;  // summed afresh at each boundary, so no rounding drift can make it negative
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].start_s <= t && t < ops[i].end_s && ops[i].end_s > ops[i].start_s) {
        rate += static_cast<double>(bytes[i]) / (ops[i].end_s - ops[i].start_s);
      }
    }
    counter.points.emplace_back(t, rate / 1e9);
  }
  return counter;
}

}  // namespace roofsim
