#include "models/dram/dram_timing_checker.h"

#include <algorithm>
#include <cmath>

namespace roofsim::dram {

CheckerTiming CheckerTiming::from(const DramStandardParams& standard) {
  const auto& t = standard.timing;
  CheckerTiming c;
  c.burst = std::max<Cycle>(1, std::llround(standard.burst_cycles()));
  c.tRCD = t.tRCD;
  c.tRCDWR = t.tRCDWR;
  c.tRP = t.tRP;
  c.tRAS = t.tRAS;
  c.tRC = t.tRC;
  c.tCL = t.tCL;
  c.tWL = t.tWL;
  c.tCCD_S = t.tCCD_S;
  c.tCCD_L = t.tCCD_L;
  c.tRRD_S = t.tRRD_S;
  c.tRRD_L = t.tRRD_L;
  c.tFAW = t.tFAW;
  c.tWR = t.tWR;
  c.tWTR_S = t.tWTR_S;
  c.tWTR_L = t.tWTR_L;
  c.tRTP = t.tRTP;
  c.tRTW = t.tRTW;
  c.tRFC = t.tRFC;
  c.tRFCsb = t.tRFCsb;
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
}

void DramTimingChecker::History::pop_front() {
  if (++head >= 1024 && head * 2 >= items.size()) {
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
  while (!acts_.empty() && acts_.begin()->at + max_act_gap_ < cycle) acts_.pop_front();
  for (auto& history : columns_) {
    while (!history.empty() && history.begin()->at + max_column_gap_ < cycle) history.pop_front();
  }
}

Cycle DramTimingChecker::bank_ready(DramCommand command, std::uint32_t bank) const {
  const auto& state = banks_[bank];
  switch (command) {
    case DramCommand::act:
    case DramCommand::ref_bank: return state.act_ok;
    case DramCommand::pre: return state.pre_ok;
    case DramCommand::rd: return state.rd_ok;
    case DramCommand::wr: return state.wr_ok;
    case DramCommand::ref_all: break;
  }
  Cycle ready = 0;
  for (const auto& other : banks_) ready = std::max(ready, other.act_ok);
  return ready;
}

Cycle DramTimingChecker::CommandBus::first_free(Cycle from, Cycle length) const {
  Cycle t = from;
  for (Cycle k = 0; k < length; ++k) {
    const Cycle slot = t + k;
    if (owner[static_cast<std::size_t>(slot) & (kBusSlots - 1)] == slot) {
      t = slot + 1;
      k = -1;
    }
  }
  return t;
}

void DramTimingChecker::CommandBus::take(Cycle at, Cycle length) {
  for (Cycle slot = at; slot < at + length; ++slot) owner[static_cast<std::size_t>(slot) & (kBusSlots - 1)] = slot;
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

Cycle DramTimingChecker::column_slot(bool is_write, std::uint32_t bank_group, Cycle from) const {
  const int added = is_write ? 1 : 0;
  Cycle t = from;
  for (bool moved = true; moved;) {
    moved = false;
    Cycle reach = t;
    // A recorded command at x forbids (x - gap(new -> x), x + gap(x -> new)), so only commands within the largest
    // gaps of t matter; the histories are sorted, so find them by bisection. RDs and WRs are kept apart so that a
    // stream of one kind looks only as far as its own short gap (tCCD), not the turnaround gaps.
    Cycle after_reads = t;
    for (int kind = 0; kind < 2; ++kind) {
      if (kind == 1) after_reads = t;
      const auto& after_gap = column_gap_[added][kind];   // recorded (kind) -> new, [same group]
      const auto& before_gap = column_gap_[kind][added];  // new -> recorded (kind), [same group]
      const Cycle reach_back = std::max(after_gap[0], after_gap[1]);
      const Cycle reach_ahead = std::max(before_gap[0], before_gap[1]);
      const auto& history = columns_[kind];
      auto it = std::partition_point(history.begin(), history.end(),
                                     [&](const Recorded& column) { return column.at <= t - reach_back; });
      for (; it != history.end() && it->at < t + reach_ahead; ++it) {
        const int same = it->bank_group == bank_group ? 1 : 0;
        reach = std::max(reach, it->at + after_gap[same]);
        if (t > it->at - before_gap[same] && t < it->at + after_gap[same]) {
          t = it->at + after_gap[same];
          moved = true;
        }
      }
    }
    // Done when every command that could still forbid t was visited (the WR pass did not move t past the window
    // the RD pass looked at) and t is past the reach of all of them.
    if (t >= reach && t == after_reads) break;
  }
  return t;
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
    case DramCommand::wr: {
      const bool is_write = command == DramCommand::wr;
      const auto group = group_of(bank);
      Cycle t = std::max(not_before, is_write ? banks_[bank].wr_ok : banks_[bank].rd_ok);
      for (;;) {
        t = column_slot(is_write, group, t);
        const Cycle after_bus = column_bus_.first_free(t, timing_.cas_cycles);
        if (after_bus == t) return t;
        t = after_bus;
      }
    }
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
  if (log_ != nullptr) log_->push_back(IssuedCommand{at, command, bank, uses_bus});
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
    case DramCommand::wr: {
      const bool is_write = command == DramCommand::wr;
      auto& state = banks_[bank];
      state.pre_ok = std::max(state.pre_ok, is_write ? at + t.tWL + t.burst + t.tWR : at + t.tRTP);
      record(columns_[is_write ? 1 : 0], Recorded{at, group_of(bank), is_write});
      if (uses_bus) column_bus_.take(at, t.cas_cycles);
      return;
    }
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
