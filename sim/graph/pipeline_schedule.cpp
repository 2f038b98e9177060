#include "sim/graph/pipeline_schedule.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace roofsim {

std::string_view to_string(PipelineScheduleKind kind) {
  switch (kind) {
    case PipelineScheduleKind::gpipe: return "gpipe";
    case PipelineScheduleKind::one_f_one_b: return "1f1b";
    case PipelineScheduleKind::interleaved: return "interleaved";
  }
  return "";
}

std::vector<PipelinePass> pipeline_order(PipelineScheduleKind kind, std::uint64_t p, std::uint64_t s, std::uint64_t m,
                                         std::uint64_t v) {
  std::vector<PipelinePass> order;
  if (kind == PipelineScheduleKind::gpipe) {
    for (std::uint64_t j = 0; j < m; ++j) order.push_back({true, j, 0});
    for (std::uint64_t j = m; j-- > 0;) order.push_back({false, j, 0});
    return order;
  }
  if (kind != PipelineScheduleKind::interleaved) v = 1;
  // The k-th forward (backward) of this stage: micro-batches in groups of p, each group through every chunk in turn
  // (backward through the chunks in reverse).
  const auto pass = [&](std::uint64_t k, bool forward) {
    const std::uint64_t group = k / (p * v), within = k % (p * v);
    const std::uint64_t chunk = forward ? within / p : v - 1 - within / p;
    return PipelinePass{forward, kind == PipelineScheduleKind::interleaved ? group * p + within % p : k, chunk};
  };
  const std::uint64_t total = m * v;
  const std::uint64_t warmup =
      std::min(total, kind == PipelineScheduleKind::interleaved ? (p - s - 1) * 2 + (v - 1) * p : p - s - 1);
  std::uint64_t f = 0, b = 0;
  for (; f < warmup; ++f) order.push_back(pass(f, true));
  while (f < total) {
    order.push_back(pass(f++, true));
    order.push_back(pass(b++, false));
  }
  while (b < total) order.push_back(pass(b++, false));
  return order;
}

PipelineTimeline simulate_pipeline(PipelineScheduleKind kind, std::uint64_t p, std::uint64_t m, std::uint64_t v,
                                   double forward_s, double backward_s) {
  if (kind != PipelineScheduleKind::interleaved) v = 1;
  if (p == 0 || m == 0 || v == 0) throw std::invalid_argument("stages, micro-batches and chunks must be above 0");
  if (kind == PipelineScheduleKind::interleaved && m % p != 0) {
    throw std::invalid_argument("interleaved 1F1B needs micro_batches a multiple of the pipeline stages");
  }
  const double tf = forward_s / static_cast<double>(v), tb = backward_s / static_cast<double>(v);
  std::vector<std::vector<PipelinePass>> orders;
  for (std::uint64_t s = 0; s < p; ++s) orders.push_back(pipeline_order(kind, p, s, m, v));
  // Finish time of each pass, keyed (forward, stage, micro-batch, chunk).
  std::map<std::tuple<bool, std::uint64_t, std::uint64_t, std::uint64_t>, double> done;
  std::vector<std::size_t> next(p, 0);
  std::vector<double> free_at(p, 0.0);
  std::size_t remaining = 0;
  for (const auto& order : orders) remaining += order.size();
  // The model chunk c of stage s is layer block c p + s: a forward needs the previous block's forward, a backward the
  // next block's backward (the last block's, its own forward).
  const auto input_ready = [&](std::uint64_t s, const PipelinePass& x) -> const double* {
    const std::uint64_t block = x.chunk * p + s, blocks = p * v;
    std::tuple<bool, std::uint64_t, std::uint64_t, std::uint64_t> key;
    if (x.forward) {
      if (block == 0) return &free_at[s];
      key = {true, (block - 1) % p, x.micro_batch, (block - 1) / p};
    } else {
      key = block + 1 == blocks ? std::make_tuple(true, s, x.micro_batch, x.chunk)
                                : std::make_tuple(false, (block + 1) % p, x.micro_batch, (block + 1) / p);
    }
    const auto it = done.find(key);
    return it == done.end() ? nullptr : &it->second;
  };
  while (remaining > 0) {
    bool progressed = false;
    for (std::uint64_t s = 0; s < p; ++s) {
      while (next[s] < orders[s].size()) {
        const auto& x = orders[s][next[s]];
        const double* ready = input_ready(s, x);
        if (ready == nullptr) break;
        const double start = std::max(free_at[s], *ready);
        free_at[s] = start + (x.forward ? tf : tb);
        done[{x.forward, s, x.micro_batch, x.chunk}] = free_at[s];
        ++next[s];
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline schedule deadlocks");
  }
  PipelineTimeline timeline;
  timeline.step_s = *std::max_element(free_at.begin(), free_at.end());
  timeline.busy_s = static_cast<double>(m) * (forward_s + backward_s);
  timeline.bubble_fraction = 1.0 - timeline.busy_s / timeline.step_s;
  std::uint64_t held = 0;
  for (const auto& x : orders.front()) {
    held = x.forward ? held + 1 : held - 1;
    timeline.peak_in_flight = std::max(timeline.peak_in_flight, held);
  }
  return timeline;
}

}  // namespace roofsim
