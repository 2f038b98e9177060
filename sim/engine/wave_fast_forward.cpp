#include "sim/engine/wave_fast_forward.h"

#include <algorithm>
#include <stdexcept>

namespace roofsim {

namespace {

std::uint64_t apart(std::uint64_t a, std::uint64_t b) {
  return a > b ? a - b : b - a;
}

// The DRAM bytes moved between two boundaries (0 across a counter that went back).
std::uint64_t dram_moved(const WaveFastForward::Boundary& from, const WaveFastForward::Boundary& to) {
  return to.dram_moved_bytes >= from.dram_moved_bytes ? to.dram_moved_bytes - from.dram_moved_bytes : 0;
}

// The interval from `from` to `to` as a window.
WaveFastForward::Window window_between(const WaveFastForward::Boundary& from, const WaveFastForward::Boundary& to) {
  WaveFastForward::Window window;
  window.window_fs = to.at_fs - from.at_fs;
  window.progress = to.progress - from.progress;
  window.booked = increments(from.booked, to.booked);
  window.bursty = increments(from.bursty, to.bursty);
  window.compared = increments(from.compared, to.compared);
  window.lane_steps = increments(from.lanes, to.lanes);
  return window;
}

}  // namespace

std::vector<std::uint64_t> increments(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& to) {
  if (from.size() != to.size()) throw std::logic_error("wave counters of different lengths");
  std::vector<std::uint64_t> d(to.size());
  for (std::size_t i = 0; i < to.size(); ++i) d[i] = to[i] >= from[i] ? to[i] - from[i] : 0;
  return d;
}

bool WaveFastForward::same_cost(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto hi = static_cast<double>(std::max(a[i], b[i]));
    const auto lo = static_cast<double>(std::min(a[i], b[i]));
    if (hi - lo > kSteadyTolerance * hi) return false;
  }
  return true;
}

bool WaveFastForward::same_slots(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return false;
  std::uint64_t moved = 0, total_a = 0, total_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    moved += apart(a[i], b[i]);
    total_a += a[i];
    total_b += b[i];
  }
  const std::uint64_t total = std::max(total_a, total_b);
  // Each slot that changed class counts twice in `moved`.
  return static_cast<double>(moved) <= 2.0 * kSlotSlack * static_cast<double>(total);
}

bool WaveFastForward::steady_backlog(std::uint64_t from_bytes, std::uint64_t to_bytes, std::uint64_t moved_bytes) {
  const auto hi = static_cast<double>(std::max(from_bytes, to_bytes));
  const double apart = hi - static_cast<double>(std::min(from_bytes, to_bytes));
  return apart <= kBurstyTolerance * static_cast<double>(moved_bytes) || apart <= hi / 4.0;
}

bool WaveFastForward::same_rate(const std::vector<std::uint64_t>& a, std::uint64_t a_progress,
                                const std::vector<std::uint64_t>& b, std::uint64_t b_progress, double tolerance) {
  if (a.size() != b.size() || a_progress == 0 || b_progress == 0) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    // a / a_progress against b / b_progress, both scaled by a_progress x b_progress.
    const double x = static_cast<double>(a[i]) * static_cast<double>(b_progress);
    const double y = static_cast<double>(b[i]) * static_cast<double>(a_progress);
    if (std::max(x, y) - std::min(x, y) > tolerance * std::max(x, y)) return false;
  }
  return true;
}

std::uint64_t WaveFastForward::scaled(std::uint64_t x, std::uint64_t num, std::uint64_t den) {
  __extension__ using Wide = unsigned __int128;
  return static_cast<std::uint64_t>((Wide{x} * num + den / 2) / den);
}

bool WaveFastForward::misses_agree(const std::vector<std::uint64_t>& booked, const std::vector<std::uint64_t>& touched,
                                   const std::vector<std::uint64_t>& capacities, double tolerance) {
  for (std::size_t level = 0; level < capacities.size(); ++level) {
    if (capacities[level] == 0) continue;
    const std::uint64_t a = level < booked.size() ? booked[level] : 0;
    const std::uint64_t b = level < touched.size() ? touched[level] : 0;
    if (static_cast<double>(apart(a, b)) > tolerance * static_cast<double>(std::max(a, b))) {
      return false;
    }
  }
  return true;
}

std::uint64_t WaveFastForward::scaled_down(std::uint64_t x, std::uint64_t num, std::uint64_t den) {
  __extension__ using Wide = unsigned __int128;
  return static_cast<std::uint64_t>(Wide{x} * num / den);
}

std::vector<std::uint32_t> WaveFastForward::steps_to_skip(const Window& window, const std::vector<std::uint64_t>& left,
                                                          const std::vector<std::uint32_t>& groups, std::uint64_t keep,
                                                          std::uint64_t buffers, TimeFs bound_fs) {
  __extension__ using Wide = unsigned __int128;
  std::vector<std::uint32_t> none(left.size(), 0);
  if (left.empty() || window.window_fs == 0 || window.lane_steps.size() != left.size()) return none;
  const auto group_of = [&](std::size_t lane) -> std::uint32_t { return groups.empty() ? 0 : groups[lane]; };
  // Each group's pace: its lanes' mean steps over the window.
  std::vector<std::uint64_t> steps_sum, lanes_in;
  for (std::size_t lane = 0; lane < left.size(); ++lane) {
    const std::uint32_t g = group_of(lane);
    if (g >= steps_sum.size()) {
      steps_sum.resize(g + 1, 0);
      lanes_in.resize(g + 1, 0);
    }
    steps_sum[g] += window.lane_steps[lane];
    ++lanes_in[g];
  }
  std::vector<std::uint64_t> pace(steps_sum.size(), 0);
  for (std::size_t g = 0; g < pace.size(); ++g) pace[g] = lanes_in[g] == 0 ? 0 : steps_sum[g] / lanes_in[g];
  TimeFs hold_bound = bound_fs;
  for (std::size_t lane = 0; lane < left.size(); ++lane) {
    const std::uint64_t p = pace[group_of(lane)];
    if (left[lane] <= keep || p == 0) return none;
    hold_bound = std::min<TimeFs>(hold_bound, static_cast<TimeFs>(Wide{left[lane] - keep} * window.window_fs / p));
  }
  std::vector<std::uint32_t> steps(left.size(), 0);
  for (std::size_t lane = 0; lane < left.size(); ++lane) {
    steps[lane] = static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(Wide{pace[group_of(lane)]} * hold_bound / window.window_fs) / buffers * buffers);
    if (steps[lane] == 0) return none;
  }
  return steps;
}

std::uint32_t WaveFastForward::first_step_through_tags(const Window& window, std::size_t lane_steps_per_round,
                                                       std::uint32_t rounds,
                                                       const std::vector<std::uint64_t>& capacities) {
  std::uint64_t window_lane_steps = 0;
  for (const auto lane_steps : window.lane_steps) window_lane_steps += lane_steps;
  std::uint32_t first = rounds;
  for (std::size_t level = 0; level < capacities.size(); ++level) {
    const std::uint64_t capacity = capacities[level];
    if (capacity == 0) continue;
    const std::uint64_t allocated = level < window.bursty.size() ? window.bursty[level] : 0;
    if (allocated == 0 || window_lane_steps == 0) return 0;
    const auto per_step = std::max<std::uint64_t>(1, allocated * lane_steps_per_round / window_lane_steps);
    const std::uint64_t needed = (2 * capacity + per_step - 1) / per_step;
    first = std::min(first, needed >= rounds ? 0 : static_cast<std::uint32_t>(rounds - needed));
  }
  return first;
}

bool WaveFastForward::steady_at_stride(std::size_t stride) const {
  const std::size_t n = last_.size();
  if (n < kSteadyWaves * stride + 1) return false;
  const auto at = [&](std::size_t windows_back) -> const Boundary& { return last_[n - 1 - windows_back * stride]; };
  for (std::size_t w = kSteadyWaves; w > 0; --w) {
    const Boundary& from = at(w);
    const Boundary& to = at(w - 1);
    if (from.state != to.state || from.epoch != to.epoch || !same_slots(from.slots, to.slots)) return false;
    if (!steady_backlog(from.dram_backlog_bytes, to.dram_backlog_bytes, dram_moved(from, to))) return false;
    if (w < kSteadyWaves &&
        !same_cost(increments(at(w + 1).compared, from.compared), increments(from.compared, to.compared))) {
      return false;
    }
  }
  // Over the windows together, the DRAM's backlog neither fills nor drains by more than kBurstyTolerance of the bytes
  // they moved. Each window's may differ from the next by a quarter (steady_backlog), and a queue that fills or
  // drains a little each window does so within that while the waves it serves speed up or slow down: MI300X's STREAM
  // copy on the simple DRAM drains its backlog by 0.5 MB a window for its first twenty waves, and three windows of
  // two waves that cost the same, skipped at that cost, would leave the op 4.5 % short of --exact.
  const Boundary& first = at(kSteadyWaves);
  const Boundary& latest = at(0);
  return static_cast<double>(apart(first.dram_backlog_bytes, latest.dram_backlog_bytes)) <=
         kBurstyTolerance * static_cast<double>(dram_moved(first, latest));
}

WaveFastForward::Skip WaveFastForward::boundary(Boundary b, std::uint64_t full_waves_left, TimeFs max_skip_fs) {
  last_.push_back(std::move(b));
  if (last_.size() > kSteadyWaves * kMaxWaveStride + 1) last_.erase(last_.begin());
  if (full_waves_left <= kKeptWaves) return Skip{};
  for (std::size_t stride = 1; stride <= kMaxWaveStride && stride <= full_waves_left - kKeptWaves; stride *= 2) {
    if (!steady_at_stride(stride)) continue;
    const Boundary& window_start = last_[last_.size() - 1 - stride];
    const Boundary& latest = last_.back();
    Skip skip;
    skip.stride = stride;
    skip.wave_fs = latest.at_fs - window_start.at_fs;
    skip.window_mark = window_start.mark;
    std::uint64_t windows = (full_waves_left - kKeptWaves) / stride;
    if (max_skip_fs != kNever) windows = std::min(windows, skip.wave_fs > 0 ? max_skip_fs / skip.wave_fs : 0);
    if (windows == 0) return Skip{};
    skip.waves = windows * stride;
    skip.hold_fs = skip.wave_fs * windows;
    skip.booked = increments(window_start.booked, latest.booked);
    for (auto& v : skip.booked) v *= windows;
    // The counters after the skip include the booked waves: waves are compared again from the next boundaries on.
    last_.clear();
    return skip;
  }
  return Skip{};
}

bool WaveFastForward::in_lockstep(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& to,
                                  std::uint64_t slack, const std::vector<std::uint32_t>& groups) {
  if (from.size() != to.size() || (!groups.empty() && groups.size() != to.size())) return false;
  const auto advanced = increments(from, to);
  std::vector<std::uint64_t> least, most;
  for (std::size_t lane = 0; lane < advanced.size(); ++lane) {
    const std::uint32_t g = groups.empty() ? 0 : groups[lane];
    if (g >= least.size()) {
      least.resize(g + 1, ~std::uint64_t{0});
      most.resize(g + 1, 0);
    }
    least[g] = std::min(least[g], advanced[lane]);
    most[g] = std::max(most[g], advanced[lane]);
  }
  for (std::size_t g = 0; g < least.size(); ++g) {
    if (most[g] >= least[g] && most[g] - least[g] > slack) return false;
  }
  return true;
}

bool WaveFastForward::clean_interval(const Boundary& from, const Boundary& to, std::uint64_t lane_slack) {
  if (from.state != to.state || from.epoch != to.epoch || from.lane_groups != to.lane_groups) return false;
  return steady_backlog(from.dram_backlog_bytes, to.dram_backlog_bytes, dram_moved(from, to)) &&
         same_slots(from.slots, to.slots) && to.progress > from.progress &&
         in_lockstep(from.lanes, to.lanes, lane_slack, to.lane_groups);
}

bool WaveFastForward::repeats_seen(const Boundary& from, const Boundary& to, const Window& seen,
                                   std::uint64_t lane_slack, Window& window) {
  Window interval = window_between(from, to);
  if (interval.lane_steps.size() != seen.lane_steps.size() || seen.progress == 0) return false;
  // Each lane at the window's pace: the steps it made there, in proportion to the work.
  for (std::size_t i = 0; i < interval.lane_steps.size(); ++i) {
    if (apart(interval.lane_steps[i], scaled(seen.lane_steps[i], interval.progress, seen.progress)) > lane_slack)
      return false;
  }
  if (!same_rate(interval.compared, interval.progress, seen.compared, seen.progress) ||
      !same_rate(interval.bursty, interval.progress, seen.bursty, seen.progress, kBurstyTolerance)) {
    return false;
  }
  window = std::move(interval);
  return true;
}

bool WaveFastForward::steady_window(Boundary b, std::uint64_t lane_slack, Window& window) {
  last_.push_back(std::move(b));
  if (last_.size() > 3) last_.erase(last_.begin());
  if (last_.size() < 2) return false;
  const Boundary& middle = last_[last_.size() - 2];
  const Boundary& latest = last_.back();
  if (!clean_interval(middle, latest, lane_slack)) return false;
  const auto seen = std::find_if(seen_.begin(), seen_.end(), [&](const Seen& s) { return s.state == latest.state; });
  if (last_.size() == 3 && clean_interval(last_[0], middle, lane_slack)) {
    const Boundary& first = last_[0];
    // In lockstep over the window, and at a steady pace: each lane's steps in the two intervals.
    bool steady = in_lockstep(first.lanes, latest.lanes, lane_slack, latest.lane_groups);
    const auto one = increments(first.lanes, middle.lanes);
    const auto two = increments(middle.lanes, latest.lanes);
    for (std::size_t i = 0; steady && i < one.size(); ++i) {
      steady = apart(one[i], two[i]) <= lane_slack;
    }
    steady = steady &&
             same_rate(increments(first.compared, middle.compared), middle.progress - first.progress,
                       increments(middle.compared, latest.compared), latest.progress - middle.progress) &&
             same_rate(increments(first.bursty, middle.bursty), middle.progress - first.progress,
                       increments(middle.bursty, latest.bursty), latest.progress - middle.progress, kBurstyTolerance);
    if (steady) {
      window = window_between(first, latest);
      if (seen != seen_.end()) {
        seen->window = window;
      } else {
        seen_.push_back(Seen{latest.state, window});
      }
      return true;
    }
  }
  if (seen == seen_.end()) return false;
  // An interval's time and traffic per unit of work carry the cut of its two boundaries through the steps in flight
  // (GPT-3's GEMMs on H100: 8-step intervals +0.42% and -0.45% in a row about their 16-step window, against the
  // 1/256 tolerance); two clean intervals in a row are compared with the seen window as one, like with like.
  if (last_.size() == 3 && clean_interval(last_[0], middle, lane_slack) &&
      repeats_seen(last_[0], latest, seen->window, lane_slack, window)) {
    return true;
  }
  return repeats_seen(middle, latest, seen->window, lane_slack, window);
}

void WaveFastForward::skipped_to(const Boundary& after) {
  if (last_.empty()) return;
  const Boundary& latest = last_.back();
  const auto shift = [](std::vector<std::uint64_t>& v, const std::vector<std::uint64_t>& d) {
    for (std::size_t i = 0; i < v.size() && i < d.size(); ++i) v[i] += d[i];
  };
  const auto compared = increments(latest.compared, after.compared);
  auto moved = compared;
  if (!moved.empty()) moved[0] = 0;  // the time: a skip's hold passes after the op's last simulated tile
  const auto bursty = increments(latest.bursty, after.bursty);
  const auto booked = increments(latest.booked, after.booked);
  const auto lanes = increments(latest.lanes, after.lanes);
  const std::uint64_t progress = after.progress >= latest.progress ? after.progress - latest.progress : 0;
  const std::uint64_t dram_moved_by_skip = dram_moved(latest, after);
  for (auto& b : last_) {
    b.dram_moved_bytes += dram_moved_by_skip;
    shift(b.compared, moved);
    shift(b.bursty, bursty);
    shift(b.booked, booked);
    shift(b.lanes, lanes);
    b.progress += progress;
  }
}

}  // namespace roofsim
