#include "models/dram/dram_timing_checker.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace roofsim::dram {

CheckerTiming CheckerTiming::from(const DramStandardParams& standard) {
  const auto& t = standard.timing;
  CheckerTiming c;
  const auto& source = dram_timing_fields<std::uint32_t>();
  const auto& target = dram_timing_fields<Cycle>();
  for (std::size_t i = 0; i < std::size(source); ++i) c.*target[i].member = t.*source[i].member;
  c.burst_length = t.burst_length;
  c.burst = std::max<Cycle>(1, std::llround(standard.burst_cycles()));
  c.act_cycles = std::max<Cycle>(1, t.act_cycles);
  c.pre_cycles = std::max<Cycle>(1, t.pre_cycles);
  c.cas_cycles = std::max<Cycle>(1, t.cas_cycles);
  c.separate_row_bus = standard.separate_row_bus;
  return c;
}

DramTimingChecker::DramTimingChecker(const CheckerTiming& timing, std::uint32_t bank_groups,
                                     std::uint32_t banks_per_group)
    : timing_(timing),
      banks_per_group_(std::max(1u, banks_per_group)),
      banks_(static_cast<std::size_t>(std::max(1u, bank_groups)) * std::max(1u, banks_per_group)) {
  group_of_bank_.resize(banks_.size());
  for (std::size_t bank = 0; bank < banks_.size(); ++bank) {
    group_of_bank_[bank] = static_cast<std::uint32_t>(bank / banks_per_group_);
  }
  max_column_gap_ = std::max({timing_.tCCD_L, timing_.tCCD_S, timing_.burst, timing_.tRTW,
                              timing_.tWL + timing_.burst + std::max(timing_.tWTR_L, timing_.tWTR_S)});
  max_act_gap_ = std::max({timing_.tRRD_L, timing_.tRRD_S, timing_.tFAW});
  // gap(a -> b): RD->RD and WR->WR tCCD (and the data bus: one burst); RD->WR tRTW; WR->RD tWL + burst + tWTR.
  for (int second = 0; second < 2; ++second) {
    for (int first = 0; first < 2; ++first) {
      for (int same = 0; same < 2; ++same) {
        Cycle gap = 0;
        if (first == second) {
          gap = std::max(same != 0 ? timing_.tCCD_L : timing_.tCCD_S, timing_.burst);
        } else if (first == 0) {
          gap = timing_.tRTW;
        } else {
          gap = timing_.tWL + timing_.burst + (same != 0 ? timing_.tWTR_L : timing_.tWTR_S);
        }
        column_gap_[second][first][same] = gap;
      }
    }
  }
  // A run's bursts go out one period apart and the runs of the other bank groups fill the gaps, tCCD_S apart: the
  // period is a whole number of those slots, else a gap narrower than two slots idles the bus (tCCD_L of 3 cycles
  // against 2-cycle bursts kept HBM2 at 2/3 of its pin rate; a controller alternating bank groups fills the bus).
  // Runs of fewer bank groups than the period has slots are placed that much more sparsely (HBM2e at 3.2 Gb/s: two
  // groups take 4/6 of the bus, not the 4/5 tCCD_L allows); DramChannel places a run alone burst by burst instead.
  column_period_ = std::max(timing_.tCCD_L, timing_.burst);
  if (bank_groups > 1) {
    const Cycle slot = std::max(timing_.tCCD_S, timing_.burst);
    column_period_ = (column_period_ + slot - 1) / slot * slot;
  }
  if ((column_period_ & (column_period_ - 1)) == 0)
    period_shift_ = __builtin_ctzll(static_cast<std::uint64_t>(column_period_));
  Cycle min_column_gap = max_column_gap_;
  for (const auto& by_first : column_gap_) {
    for (const auto& by_group : by_first) min_column_gap = std::min({min_column_gap, by_group[0], by_group[1]});
  }
  columns_imply_bus_ = timing_.separate_row_bus && timing_.cas_cycles <= min_column_gap;
  // The gaps to a recorded command of each direction (kind) in the same or another bank group (same), and the
  // residues it forbids while its pattern covers t: the residues of start + d, d in [1 - before, after - 1].
  // They do not change during the run: computed once, not per search.
  const std::uint64_t all_residues =
      column_period_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << column_period_) - 1;
  for (int added = 0; added < 2; ++added) {
    for (int kind = 0; kind < 2; ++kind) {
      for (int same = 0; same < 2; ++same) {
        auto& g = column_slot_gaps_[added][kind][same];
        g.after = column_gap_[added][kind][same];
        g.before = column_gap_[kind][added][same];
        const Cycle width = g.after + g.before - 1;
        g.span = width >= column_period_ ? all_residues : (std::uint64_t{1} << width) - 1;
        column_reach_after_[added] = std::max(column_reach_after_[added], g.after);
        column_reach_before_[added] = std::max(column_reach_before_[added], g.before);
        if (kind == added) {
          own_reach_after_[added] = std::max(own_reach_after_[added], g.after);
          own_reach_before_[added] = std::max(own_reach_before_[added], g.before);
        } else {
          other_reach_after_[added] = std::max(other_reach_after_[added], g.after);
        }
      }
    }
  }
  column_blocked_.assign(2 * static_cast<std::size_t>(std::max(1u, bank_groups)), {0, 0});
}

void DramTimingChecker::share_command_buses(DramTimingChecker& owner) {
  // The row bus only: a pseudo-channel's column commands are at least tCCD_S (a burst, 2 CK) apart and take one CK,
  // so two pseudo-channels' column commands fit on the shared column pins when each keeps to its own half of the
  // cycles; checking it per burst made an H100 stream three times slower to simulate for a change of 2 parts in
  // 100 000 of its simulated time.
  shared_row_bus_ = &owner.row_bus_;
}

void DramTimingChecker::History::pop_front() {
  if (++head >= kCompactAfter && head * 2 >= items.size()) {
    items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
}

void DramTimingChecker::record(History& history, const Recorded& command) {
  // Commands arrive almost in cycle order: the place is found in a step or two from the back.
  auto& items = history.items;
  auto position = items.end();
  const auto first = items.begin() + static_cast<std::ptrdiff_t>(history.head);
  while (position != first && std::prev(position)->at > command.at) --position;
  items.insert(position, command);
}

void DramTimingChecker::forget_before(Cycle cycle) {
  row_bus().forget_before(cycle);
  column_bus().forget_before(cycle);
  while (!acts_.empty() && acts_.begin()->at + max_act_gap_ < cycle) acts_.pop_front();
  while (column_head_ < column_runs_.size() && column_runs_[column_head_].last + max_column_gap_ < cycle) {
    ++column_head_;
  }
  if (column_head_ >= kCompactAfter && column_head_ * 2 >= column_runs_.size()) {
    column_runs_.erase(column_runs_.begin(), column_runs_.begin() + static_cast<std::ptrdiff_t>(column_head_));
    column_head_ = 0;
  }
}

void DramTimingChecker::record_columns(const ColumnRun& run) {
  // A run that continues the last recorded one (same bank group and direction, one period on) extends it, as long
  // as it stays no longer than the longest run recorded whole: searches walk back from their cycle over that span,
  // so runs merged without bound would make every search walk over every live run.
  column_span_ = std::max(column_span_, run.last - run.start);
  if (column_head_ < column_runs_.size()) {
    auto& back = column_runs_.back();
    if (back.bank_group == run.bank_group && back.is_write == run.is_write && back.last + column_period_ == run.start &&
        run.last - back.start <= column_span_) {
      back.last = run.last;
      back.count += run.count;
      return;
    }
  }
  // Runs arrive almost in start order: the place is found in a step or two from the back.
  auto position = column_runs_.end();
  const auto first = column_runs_.begin() + static_cast<std::ptrdiff_t>(column_head_);
  while (position != first && std::prev(position)->start > run.start) --position;
  column_runs_.insert(position, run);
}

template <class Visit>
void DramTimingChecker::for_each_column_run(Cycle low, Cycle high, Cycle reach_before, Cycle reach_after,
                                            Visit&& visit) const {
  // A recorded command at x constrains a command at t only when x - reach_before < t < x + reach_after; a run
  // starts at most column_span_ before its last command.
  const Cycle top = high + reach_before, bottom = low - reach_after;
  const auto begin = column_runs_.begin() + static_cast<std::ptrdiff_t>(column_head_);
  auto it = std::partition_point(begin, column_runs_.end(), [&](const ColumnRun& run) { return run.start < top; });
  while (it != begin) {
    --it;
    if (it->start + column_span_ <= bottom) break;
    if (it->last > bottom) visit(*it);
  }
}

Cycle DramTimingChecker::all_banks_act_ready() const {
  Cycle ready = 0;
  for (const auto& other : banks_) ready = std::max(ready, other.act_ok);
  return ready;
}

// tRRD_S / tRRD_L, both ways.
Cycle DramTimingChecker::act_slot(std::uint32_t bank_group, Cycle from) const {
  const Cycle horizon = std::max(timing_.tRRD_L, timing_.tRRD_S);
  Cycle t = from;
  for (bool moved = true; moved;) {
    moved = false;
    // Only ACTs within tRRD of t can forbid it; the history is sorted, so find them by bisection.
    auto it =
        std::partition_point(acts_.begin(), acts_.end(), [&](const Recorded& act) { return act.at <= t - horizon; });
    for (; it != acts_.end() && it->at < t + horizon; ++it) {
      const Cycle gap = it->bank_group == bank_group ? timing_.tRRD_L : timing_.tRRD_S;
      if (t > it->at - gap && t < it->at + gap) {
        t = it->at + gap;
        moved = true;
      }
    }
  }
  return t;
}

// At most four ACTs in any window of tFAW cycles (JESD79-4 tFAW; JESD235 tFAW per pseudo-channel).
Cycle DramTimingChecker::faw_slot(Cycle from) const {
  const Cycle window = timing_.tFAW;
  if (window <= 0) return from;
  Cycle t = from;
  for (;;) {
    // The recorded ACTs within a window of t, in cycle order (the history is sorted).
    const Recorded* low =
        std::partition_point(acts_.begin(), acts_.end(), [&](const Recorded& act) { return act.at <= t - window; });
    const Recorded* high =
        std::partition_point(low, acts_.end(), [&](const Recorded& act) { return act.at < t + window; });
    const auto count = static_cast<std::size_t>(high - low);
    if (count < 4) return t;
    const auto position = static_cast<std::size_t>(
        std::partition_point(low, high, [&](const Recorded& act) { return act.at <= t; }) - low);
    // The ACT times with t inserted at `position`; any five consecutive must span at least tFAW.
    const auto merged = [&](std::size_t i) { return i < position ? low[i].at : i == position ? t : low[i - 1].at; };
    bool moved = false;
    for (std::size_t i = position >= 4 ? position - 4 : 0; i <= position && !moved; ++i) {
      if (i + 4 <= count && merged(i + 4) - merged(i) < window) {
        // Leave the window: after the ACT that opens it, or past the next ACT when this one opens it.
        t = i < position ? merged(i) + window : merged(position + 1);
        moved = true;
      }
    }
    if (!moved) return t;
  }
}

namespace {
constexpr Cycle kFarCycle = std::numeric_limits<Cycle>::max() / 4;

Cycle floor_div(Cycle a, Cycle b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
}  // namespace

Cycle DramTimingChecker::period_floor(Cycle a) const {
  // An arithmetic right shift is floor division by a power of two (GCC and Clang shift signed values arithmetically).
  return period_shift_ >= 0 ? a >> period_shift_ : floor_div(a, column_period_);
}

int DramTimingChecker::period_residue(Cycle a) const {
  return static_cast<int>(period_shift_ >= 0 ? a & (column_period_ - 1)
                                             : a - floor_div(a, column_period_) * column_period_);
}

namespace {
// Rotations of a set of residues modulo `period` (bit r: residue r), period <= 64, `all` its full set.
std::uint64_t rotate_left(std::uint64_t mask, int by, Cycle period, std::uint64_t all) {
  return by == 0 ? mask : ((mask << by) | (mask >> (period - by))) & all;
}
std::uint64_t rotate_right(std::uint64_t mask, int by, Cycle period, std::uint64_t all) {
  return by == 0 ? mask : ((mask >> by) | (mask << (period - by))) & all;
}
}  // namespace

// A recorded run X (commands x_i = start + i P, i < count) forbids a new command at t when t - x_i lies in
// [-before + 1, after - 1] for some i, with after = gap(X -> new) and before = gap(new -> X). Between
// start + after - P and last + P - before that depends only on t modulo P: then X forbids a fixed set of residues.
// When the runs around t forbid every residue, no cycle is legal until the first of them leaves that stretch.
Cycle DramTimingChecker::column_slot(bool is_write, std::uint32_t bank_group, Cycle from) const {
  const int added = is_write ? 1 : 0;
  const Cycle period = column_period_;
  const bool residues = period <= 64;
  const std::uint64_t all = period == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << period) - 1;
  // Commands are only ever added (forget_before drops only those that no longer constrain), so a stretch once found
  // illegal stays illegal: a search starting inside the last one found for this direction and bank group resumes at
  // its end. Decisions search from behind the commands already committed ahead; this skips those in one step.
  auto& blocked = column_blocked_[static_cast<std::size_t>(added) * (column_blocked_.size() / 2) + bank_group];
  const bool resumes = from >= blocked.first && from < blocked.second;
  Cycle t = resumes ? blocked.second : from;
  const auto found = [&](Cycle at) {
    blocked = {resumes ? blocked.first : from, at};
    return at;
  };
  const auto& gaps = column_slot_gaps_[added];
  // The runs whose pattern covers t: until when, and the residues they forbid.
  constexpr std::size_t kCovering = 16;
  Cycle covering_until[kCovering + 1];
  std::uint64_t covering_mask[kCovering + 1];
  for (;;) {
    Cycle next = t;  // no legal cycle before this
    bool forbidden_here = false;
    std::uint64_t forbidden = 0;  // residues modulo the period forbidden by the runs whose pattern covers t
    std::size_t covering = 0;
    bool overflow = false;  // more runs cover t than are kept
    // Only runs within this direction's widest gaps of t can constrain it (any other leaves the visit at once).
    // A run of the other direction constrains t only when t < its last command + gap (the visit's first test): once
    // t is that far past the last one recorded, none does, and the window of this direction's own gaps holds every
    // run that can.
    const bool other_reaches = t < last_column_[1 - added] + other_reach_after_[added];
    const Cycle reach_before = other_reaches ? column_reach_before_[added] : own_reach_before_[added];
    const Cycle reach_after = other_reaches ? column_reach_after_[added] : own_reach_after_[added];
    for_each_column_run(t, t, reach_before, reach_after, [&](const ColumnRun& run) {
      const auto& g = gaps[run.is_write ? 1 : 0][run.bank_group == bank_group ? 1 : 0];
      // Out of the run's reach (the walk's window is the widest gap of any kind): it neither forbids t nor a
      // residue at t; leaving it out only shortens a skip that follows.
      if (t >= run.last + g.after || t <= run.start - g.before) return;
      const Cycle offset = t - run.start;
      const Cycle high = std::min<Cycle>(period_floor(offset + g.before - 1), run.count - 1);
      const Cycle low = std::max<Cycle>(-period_floor(g.after - 1 - offset), 0);
      if (low <= high) {
        forbidden_here = true;
        next = std::max(next, run.start + high * period + g.after);
      }
      const Cycle until = run.last + period - g.before;
      if (residues && t >= run.start + g.after - period && t <= until) {
        const std::uint64_t mask =
            g.span == all ? all : rotate_left(g.span, period_residue(run.start + 1 - g.before), period, all);
        forbidden |= mask;
        if (covering < kCovering) {
          // Kept sorted by `until` (a handful of runs).
          std::size_t i = covering++;
          for (; i > 0 && covering_until[i - 1] > until; --i) {
            covering_until[i] = covering_until[i - 1];
            covering_mask[i] = covering_mask[i - 1];
          }
          covering_until[i] = until;
          covering_mask[i] = mask;
        } else {
          overflow = true;
        }
      }
    });
    if (!forbidden_here) {
      if (columns_imply_bus_) return found(t);
      const Cycle after_bus = column_bus().first_free(t, timing_.cas_cycles);
      if (after_bus == t) return found(t);
      t = after_bus;
      continue;
    }
    if (((forbidden >> period_residue(t)) & 1U) != 0) {
      if (overflow) {
        next = std::max(next, t + 1);  // too many runs to follow: step on
      } else {
        // Every cycle whose residue the runs still covering it forbid is illegal. The runs leave in order of
        // `until`: the first cycle u >= t whose residue those left at u do not forbid, found level by level.
        covering_mask[covering] = 0;
        for (std::size_t i = covering; i > 0; --i) covering_mask[i - 1] |= covering_mask[i];  // suffix unions
        Cycle u = t;
        for (std::size_t i = 0;;) {
          while (i < covering && covering_until[i] < u) ++i;
          const std::uint64_t left = covering_mask[i];
          if (left != all) {
            const std::uint64_t ahead = rotate_right(left, period_residue(u), period, all);  // bit k: u + k forbidden
            const Cycle open = u + __builtin_ctzll(~ahead);
            if (i == covering || open <= covering_until[i]) {
              u = open;
              break;
            }
          }
          u = covering_until[i] + 1;
        }
        next = std::max(next, u);
      }
    }
    t = next;
  }
}

// Commands y_j = at + j P against a recorded run x_i = start + i P: y_j - x_i = (at - start) - k P with k = i - j, a
// conflict when that lies in [-before + 1, after - 1]. The conflicting k form one interval; the largest valid k
// gives the first conflicting j.
std::uint32_t DramTimingChecker::column_prefix(bool is_write, std::uint32_t bank_group, Cycle at,
                                               std::uint32_t count) const {
  const int added = is_write ? 1 : 0;
  const Cycle period = column_period_;
  std::uint32_t legal = count;
  // As in column_slot(): past the other direction's reach, only runs of this direction within its own gaps count.
  const bool other_reaches = at < last_column_[1 - added] + other_reach_after_[added];
  const Cycle reach_before = other_reaches ? max_column_gap_ : own_reach_before_[added];
  const Cycle reach_after = other_reaches ? max_column_gap_ : own_reach_after_[added];
  for_each_column_run(
      at, at + static_cast<Cycle>(count - 1) * period, reach_before, reach_after, [&](const ColumnRun& run) {
        const int same = run.bank_group == bank_group ? 1 : 0;
        const int kind = run.is_write ? 1 : 0;
        const Cycle after = column_gap_[added][kind][same], before = column_gap_[kind][added][same];
        const Cycle offset = at - run.start;
        const Cycle k_low = std::max<Cycle>(-period_floor(after - 1 - offset), 1 - static_cast<Cycle>(count));
        const Cycle k_high = std::min<Cycle>(period_floor(offset + before - 1), run.count - 1);
        if (k_low <= k_high) legal = std::min(legal, static_cast<std::uint32_t>(std::max<Cycle>(0, -k_high)));
      });
  if (!columns_imply_bus_) {
    for (std::uint32_t j = 1; j < legal; ++j) {
      const Cycle cycle = at + static_cast<Cycle>(j) * period;
      if (column_bus().first_free(cycle, timing_.cas_cycles) != cycle) legal = j;
    }
  }
  return std::max(legal, 1U);
}

DramTimingChecker::ColumnPlacement DramTimingChecker::place_columns(DramCommand command, std::uint32_t bank,
                                                                    Cycle not_before, std::uint32_t count) const {
  const bool is_write = command == DramCommand::wr;
  const auto group = group_of(bank);
  const Cycle at =
      column_slot(is_write, group, std::max(not_before, is_write ? banks_[bank].wr_ok : banks_[bank].rd_ok));
  return ColumnPlacement{at, count <= 1 ? 1U : column_prefix(is_write, group, at, count)};
}

void DramTimingChecker::issue_columns(DramCommand command, std::uint32_t bank, Cycle at, std::uint32_t count) {
  issue_columns(command, bank, at, count, true);
}

void DramTimingChecker::issue_columns(DramCommand command, std::uint32_t bank, Cycle at, std::uint32_t count,
                                      bool uses_bus) {
  const auto& t = timing_;
  const bool is_write = command == DramCommand::wr;
  const Cycle last = at + static_cast<Cycle>(count - 1) * column_period_;
  if (log_ != nullptr) {
    for (std::uint32_t j = 0; j < count; ++j) {
      log_->push_back(IssuedCommand{at + static_cast<Cycle>(j) * column_period_, command, bank, uses_bus});
    }
  }
  auto& state = banks_[bank];
  state.pre_ok = std::max(state.pre_ok, is_write ? last + t.tWL + t.burst + t.tWR : last + t.tRTP);
  const auto group = group_of(bank);
  record_columns(ColumnRun{at, last, count, group, is_write});
  last_column_[is_write ? 1 : 0] = std::max(last_column_[is_write ? 1 : 0], last);
  // The run forbids its own direction and bank group every cycle within tCCD_L (the same-group gap) of its commands,
  // [at - gap + 1, last + gap) when its commands are less than two gaps apart (the period is at most a tCCD_S slot
  // longer than that gap): the memo of column_slot() takes that stretch in, so that the next search of this bank group
  // starts past the run instead of stepping through it.
  auto& blocked = column_blocked_[(is_write ? column_blocked_.size() / 2 : 0) + group];
  const Cycle gap = column_gap_[is_write ? 1 : 0][is_write ? 1 : 0][1];
  const Cycle low = at - gap + 1, high = (column_period_ < 2 * gap ? last : at) + gap;
  if (low <= blocked.second && blocked.first <= high) {
    blocked = {std::min(blocked.first, low), std::max(blocked.second, high)};
  } else if (high > blocked.second) {
    blocked = {low, high};
  }
  if (uses_bus && !columns_imply_bus_) {
    for (std::uint32_t j = 0; j < count; ++j) {
      column_bus().take(at + static_cast<Cycle>(j) * column_period_, t.cas_cycles);
    }
  }
}

Cycle DramTimingChecker::earliest(DramCommand command, std::uint32_t bank, Cycle not_before) const {
  switch (command) {
    case DramCommand::act: {
      const auto group = group_of(bank);
      Cycle t = std::max(not_before, banks_[bank].act_ok);
      // Each step returns a fixpoint of its own constraints: done when the next step does not move the cycle.
      for (;;) {
        t = act_slot(group, t);
        const Cycle after_faw = faw_slot(t);
        if (after_faw != t) {
          t = after_faw;
          continue;
        }
        const Cycle after_bus = row_bus().first_free(t, timing_.act_cycles);
        if (after_bus == t) return t;
        t = after_bus;
      }
    }
    case DramCommand::pre: return row_bus().first_free(std::max(not_before, banks_[bank].pre_ok), timing_.pre_cycles);
    case DramCommand::rd:
    case DramCommand::wr: return place_columns(command, bank, not_before, 1).at;
    case DramCommand::ref_all: {
      Cycle t = not_before;
      for (const auto& state : banks_) t = std::max(t, state.act_ok);
      return row_bus().first_free(t, 1);
    }
    case DramCommand::ref_bank: return row_bus().first_free(std::max(not_before, banks_[bank].act_ok), 1);
  }
  return not_before;
}

void DramTimingChecker::issue(DramCommand command, std::uint32_t bank, Cycle at, bool uses_bus) {
  const auto& t = timing_;
  if (log_ != nullptr && command != DramCommand::rd && command != DramCommand::wr) {
    log_->push_back(IssuedCommand{at, command, bank, uses_bus});
  }
  switch (command) {
    case DramCommand::act: {
      auto& state = banks_[bank];
      state.act_ok = std::max(state.act_ok, at + t.tRC);
      state.pre_ok = std::max(state.pre_ok, at + t.tRAS);
      state.rd_ok = std::max(state.rd_ok, at + t.tRCD);
      state.wr_ok = std::max(state.wr_ok, at + t.tRCDWR);
      record(acts_, Recorded{at, group_of(bank), false});
      if (uses_bus) row_bus().take(at, t.act_cycles);
      return;
    }
    case DramCommand::pre: {
      auto& state = banks_[bank];
      state.act_ok = std::max(state.act_ok, at + t.tRP);
      if (uses_bus) row_bus().take(at, t.pre_cycles);
      return;
    }
    case DramCommand::rd:
    case DramCommand::wr: issue_columns(command, bank, at, 1, uses_bus); return;
    case DramCommand::ref_all:
      for (auto& state : banks_) state.act_ok = std::max(state.act_ok, at + t.tRFC);
      if (uses_bus) row_bus().take(at, 1);
      return;
    case DramCommand::ref_bank:
      banks_[bank].act_ok = std::max(banks_[bank].act_ok, at + t.tRFCsb);
      if (uses_bus) row_bus().take(at, 1);
      return;
  }
}

}  // namespace roofsim::dram
