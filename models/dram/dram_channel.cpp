#include "models/dram/dram_channel.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace roofsim::dram {

ChannelPolicy ChannelPolicy::from(const DramParams& dram) {
  ChannelPolicy policy;
  policy.page = dram.page_policy;
  policy.scheduler = dram.scheduler;
  policy.refresh = dram.resolved_refresh();
  policy.read_queue = std::max(1u, dram.read_queue);
  policy.write_queue = std::max(1u, dram.write_queue);
  policy.write_high = std::min(std::max(1u, dram.write_high), policy.write_queue);
  policy.write_low = std::min(dram.write_low, policy.write_high - 1);
  policy.frfcfs_cap = dram.frfcfs_cap;
  policy.refresh_postpone = dram.resolved_refresh_postpone();
  return policy;
}

void DecisionScratch::fit(std::uint32_t bank_groups) {
  const std::size_t groups = std::max(1u, bank_groups);
  if (group_lead.size() < groups) group_lead.resize(groups);
  // A candidate per bank (at most 64).
  bounded.reserve(64);
  bounded_first.reserve(64);
  searched.reserve(64);
  if (act_known.size() < groups) {
    act_known.resize(groups);
    column_known.resize(groups);
  }
}

DramChannel::DramChannel(const DramStandardParams& standard, const ChannelPolicy& policy, DecisionScratch* shared)
    : policy_(policy),
      checker_(CheckerTiming::from(standard), standard.bank_groups, standard.banks_per_group),
      scheduler_(make_scheduler(policy.scheduler, policy.frfcfs_cap)),
      row_policy_(make_row_policy(policy.page)),
      refresh_(policy.refresh, standard.timing.tREFI, standard.timing.tREFIsb, standard.banks(),
               policy.refresh_postpone),
      open_rows_(checker_.banks(), kClosed),
      reads_(checker_.banks()),
      writes_(checker_.banks()) {
  counters_.acts_per_bank.assign(checker_.banks(), 0);
  for (auto& parts : open_row_parts_) parts.assign(checker_.banks(), 0);
  if (shared == nullptr) own_scratch_ = std::make_unique<DecisionScratch>();
  scratch_ = shared != nullptr ? shared : own_scratch_.get();
  scratch_->fit(standard.bank_groups);
}

bool DramChannel::has_space(bool is_write, std::uint32_t segments) const {
  const auto held = static_cast<std::uint32_t>(held_[is_write ? 1 : 0].size());
  return is_write ? writes_.size() + held + segments <= policy_.write_queue
                  : reads_.size() + held + segments <= policy_.read_queue;
}

void DramChannel::release_until(Cycle cycle) {
  for (auto& held : held_) {
    while (!held.empty() && held.front() <= cycle) {
      std::pop_heap(held.begin(), held.end(), std::greater<>());
      held.pop_back();
    }
  }
}

Cycle DramChannel::next_release() const {
  Cycle next = kNever;
  for (const auto& held : held_) {
    if (!held.empty()) next = std::min(next, held.front());
  }
  return next;
}

void DramChannel::enqueue(const Segment& segment) {
  if (!has_work()) busy_from_ = segment.arrival;
  (segment.is_write ? writes_ : reads_)
      .push(segment.bank, BankQueues::Entry{segment.parent, segment.row, next_order_++, segment.bursts, 0});
  if (open_rows_[segment.bank] == segment.row) ++open_row_parts_[segment.is_write ? 1 : 0][segment.bank];
}

void DramChannel::share_command_buses(DramChannel& owner) {
  checker_.share_command_buses(owner.checker_);
  for (DramChannel* member : owner.bus_sharers_) {
    member->bus_sharers_.push_back(this);
    bus_sharers_.push_back(member);
  }
  owner.bus_sharers_.push_back(this);
  bus_sharers_.push_back(&owner);
}

void DramChannel::set_open_row(std::uint32_t bank, std::uint64_t row) {
  open_rows_[bank] = row;
  open_row_parts_[0][bank] = row == kClosed ? 0 : reads_.count_row(bank, row);
  open_row_parts_[1][bank] = row == kClosed ? 0 : writes_.count_row(bank, row);
}

std::optional<std::uint64_t> DramChannel::open_row(std::uint32_t bank) const {
  if (open_rows_[bank] == kClosed) return std::nullopt;
  return open_rows_[bank];
}

bool DramChannel::queued_hit(std::uint32_t bank, std::uint64_t row) const {
  return reads_.find_row(bank, row) != BankQueues::kNone || writes_.find_row(bank, row) != BankQueues::kNone;
}

// Refreshes due before `cycle`: all-bank refresh first precharges every open bank (JESD79-4 REF needs all banks
// idle), per-bank refresh only the bank it refreshes. One falling due while requests are queued may be postponed
// (RefreshManager::may_postpone); the owed ones go out from the start of the next idle stretch, one after another
// while no request has arrived, or one per due cycle once the limit is owed. The queues as they are at the call
// stand for the banks' state at each due cycle of a busy stretch.
//
// A channel left alone keeps refreshing (a second is 256,000 tREFI of 3.9 us), and a PRE held back (a long tWR) holds
// back every REF due meanwhile, so the refreshes of a stretch are counted in closed form where they repeat (nothing
// owed, or the limit owed, so that each is issued at its due cycle):
// - All-bank: once a REF has gone out at R0, every bank is closed and every command issued so far lies before R0, so
//   the i-th REF after it goes out at Ri = max(R0 + i tRFC, due_i) (its own tRFC, or its due cycle); the ones before
//   the last are counted and only the last is issued, which leaves the timing checker as the whole sequence would.
// - Per-bank: once a whole round went out at its due cycles with no bank to close, each later round is the same round
//   shifted by its length (each bank's tRFCsb ends before its next REF is due); the rounds before the last are counted.
// A command log asks for every command, so it turns both off.
void DramChannel::refresh_until(Cycle cycle) {
  const auto& timing = checker_.timing();
  const bool all_banks = refresh_.mode() == RefreshMode::all_bank;
  const Cycle interval = refresh_.interval();
  const std::uint64_t round = refresh_.round();
  const Cycle round_cycles = static_cast<Cycle>(round) * interval;
  const bool counted = !checker_.logging() && interval > 0;
  const bool rounds_repeat = counted && !all_banks && timing.tRFCsb <= round_cycles;
  // The idle stretch [idle_since_, idle_end): from the decision that emptied the queues to the next arrival.
  const Cycle idle_end = has_work() ? busy_from_ : kNever;
  const std::uint64_t busy = reads_.nonempty() | writes_.nonempty();
  Cycle repay_from = idle_since_;  // where the next owed refresh may go, while the channel is idle
  // Per-bank refreshes in a row issued at their due cycle with no bank to close. The count goes on from the last call
  // while the channel has served nothing since: a channel idle through a run of replayed ops is caught up at each
  // replay's end, and would otherwise issue a whole round one by one at every call before it could skip rounds.
  const std::uint64_t served = counters_.read_bursts + counters_.write_bursts + counters_.acts;
  if (served != served_at_refresh_) refresh_on_time_ = 0;
  std::uint64_t& on_time = refresh_on_time_;
  for (;;) {
    const Cycle due = refresh_.next_due();
    const bool repaying = refresh_.owed() > 0 && repay_from < idle_end && repay_from <= cycle && repay_from <= due;
    if (!repaying && due > cycle) break;
    const bool idle = due >= idle_since_ && due < idle_end;
    if (!repaying && !idle && refresh_.may_postpone(busy)) {
      refresh_.postpone();
      on_time = 0;
      continue;
    }
    const bool fixed = refresh_.owed() == (idle ? 0 : refresh_.owed_limit());  // each later one at its due cycle
    const Cycle span_end = idle && refresh_.owed_limit() > 0 ? std::min(cycle, idle_end - 1) : cycle;
    if (!repaying && fixed && rounds_repeat && on_time >= round && refresh_.at_round_start() && span_end >= due) {
      const auto rounds = static_cast<std::uint64_t>((span_end - due) / round_cycles);
      if (rounds >= 2) {
        const std::uint64_t skipped = (rounds - 1) * round;
        counters_.refs_per_bank += skipped;
        counters_.refresh_bank_cycles += static_cast<Cycle>(skipped) * timing.tRFCsb;
        refresh_.skip_rounds(rounds - 1);
        continue;
      }
    }
    const Cycle from = repaying ? repay_from : due;
    const std::uint32_t first = all_banks ? 0 : refresh_.next_bank(repaying ? 0 : busy);
    const std::uint32_t last = all_banks ? checker_.banks() : first + 1;
    bool closed_any = false;
    for (std::uint32_t bank = first; bank < last; ++bank) {
      if (open_rows_[bank] == kClosed) continue;
      checker_.issue(DramCommand::pre, bank, checker_.earliest(DramCommand::pre, bank, from));
      set_open_row(bank, kClosed);
      ++counters_.pres;
      closed_any = true;
    }
    const DramCommand command = all_banks ? DramCommand::ref_all : DramCommand::ref_bank;
    const Cycle at = checker_.earliest(command, first, from);
    checker_.issue(command, first, at);
    if (all_banks) {
      ++counters_.refs_all_bank;
      counters_.refresh_bank_cycles += timing.tRFC * static_cast<Cycle>(checker_.banks());
    } else {
      ++counters_.refs_per_bank;
      counters_.refresh_bank_cycles += timing.tRFCsb;
    }
    if (repaying) {
      refresh_.repay(first);
      repay_from = at;
      on_time = 0;
      continue;
    }
    on_time = at == due && !closed_any ? on_time + 1 : 0;
    refresh_.advance(first);
    if (counted && fixed && all_banks && timing.tRFC > 0 && span_end >= due) {
      // The refreshes still due by `span_end`, the n-th due at due + n tREFI: count them, issue the last.
      const auto remaining = static_cast<std::uint64_t>((span_end - due) / interval);
      if (remaining >= 2) {
        const auto n = static_cast<Cycle>(remaining);
        checker_.issue(DramCommand::ref_all, 0, std::max(at + n * timing.tRFC, due + n * interval));
        counters_.refs_all_bank += remaining;
        counters_.refresh_bank_cycles += n * timing.tRFC * static_cast<Cycle>(checker_.banks());
        refresh_.skip_rounds(remaining);
      }
    }
  }
  if (has_work() && cycle >= busy_from_) idle_since_ = kNever;
  served_at_refresh_ = served;
}

void DramChannel::refresh_for_bus_sharer(Cycle cycle) {
  if (refresh_.next_due() > cycle) return;
  const Cycle bank_cycles = counters_.refresh_bank_cycles;
  const std::uint64_t pres = counters_.pres, refs_all = counters_.refs_all_bank,
                      refs_per_bank = counters_.refs_per_bank;
  refresh_until(cycle);
  sharer_refresh_.bank_cycles += counters_.refresh_bank_cycles - bank_cycles;
  sharer_refresh_.pres += counters_.pres - pres;
  sharer_refresh_.refs_all_bank += counters_.refs_all_bank - refs_all;
  sharer_refresh_.refs_per_bank += counters_.refs_per_bank - refs_per_bank;
}

void DramChannel::finish(Cycle end) {
  refresh_until(end);
  // The refreshes of an idle stretch are charged to no decision, whichever channel issued them.
  sharer_refresh_ = {};
}

Cycle DramChannel::first_command_cycle(DramCommand first, std::uint32_t bank, Cycle decision) {
  // Past its bank's own constraint, whether a cycle is legal for the command depends only on the bank group (on the
  // channel for PRE), and the answer is the first legal cycle: one found from `from` is the answer from any cycle of
  // [from, answer]. The banks of a group share those answers within the decision (no command issues meanwhile).
  const Cycle from = std::max(decision, checker_.bank_ready(first, bank));
  const auto group = checker_.group_of(bank);
  auto& known = first == DramCommand::act   ? scratch_->act_known[group]
                : first == DramCommand::pre ? pre_known_
                                            : scratch_->column_known[group];
  if (from >= known.from && from <= known.at) return known.at;
  const Cycle at = checker_.earliest(first, bank, decision);
  known = {from, at};
  return at;
}

const std::vector<SegmentDone>& DramChannel::decide(Cycle now) {
  const Cycle decision = std::max(now, clock_);
  const RefreshCharge refresh = refresh_before_decision(decision);
  const bool is_write = choose_direction();
  auto& queues = is_write ? writes_ : reads_;
  const DramCommand column = is_write ? DramCommand::wr : DramCommand::rd;
  pick_runs(queues, column, decision);
  const Cycle row_command = open_rows_for_runs(decision);
  const Cycle first_command = std::min(row_command, place_bursts(column));
  const auto& done_parts = report_parts(is_write, refresh);
  clock_ = std::max(decision, first_command);
  if (!has_work()) idle_since_ = decision;
  return done_parts;
}

DramChannel::RefreshCharge DramChannel::refresh_before_decision(Cycle decision) {
  // The refreshes a bus sharer issued since the last decision count as issued just before this one.
  const Cycle refresh_before = counters_.refresh_bank_cycles - sharer_refresh_.bank_cycles;
  const std::uint64_t pres_before = counters_.pres - sharer_refresh_.pres;
  RefreshCharge charge;
  charge.refs_all_before = counters_.refs_all_bank - sharer_refresh_.refs_all_bank;
  charge.refs_per_bank_before = counters_.refs_per_bank - sharer_refresh_.refs_per_bank;
  sharer_refresh_ = {};
  refresh_until(decision);
  for (DramChannel* sharer : bus_sharers_) sharer->refresh_for_bus_sharer(decision);
  // After the refreshes: those due before the decision (an idle channel's) ask about the bus from their due cycles.
  checker_.forget_before(decision);
  charge.pres = static_cast<std::uint32_t>(counters_.pres - pres_before);
  // Channel cycles the refreshes just issued block (bank-cycles over the banks), charged to this decision.
  charge.cycles = (counters_.refresh_bank_cycles - refresh_before) / static_cast<Cycle>(checker_.banks());
  return charge;
}

bool DramChannel::choose_direction() {
  // Write drain with watermarks: writes wait until write_high of them are queued (or no read is waiting), then drain
  // down to write_low.
  const std::uint32_t queued_writes = writes_.size(), queued_reads = reads_.size();
  if (!draining_writes_) {
    draining_writes_ = queued_writes > 0 && (queued_writes >= policy_.write_high || queued_reads == 0);
  } else if (queued_writes == 0 || (queued_writes <= policy_.write_low && queued_reads > 0)) {
    draining_writes_ = false;
  }
  return draining_writes_;
}

void DramChannel::pick_runs(BankQueues& queues, DramCommand column, Cycle decision) {
  const std::uint64_t nonempty = queues.nonempty();
  const int direction = column == DramCommand::wr ? 1 : 0;
  // The oldest queued request (each bank's queue is in arrival order).
  std::uint32_t oldest_bank = 0;
  std::uint64_t oldest_order = ~std::uint64_t{0};
  for (std::uint64_t banks = nonempty; banks != 0; banks &= banks - 1) {
    const auto bank = static_cast<std::uint32_t>(__builtin_ctzll(banks));
    if (queues.front_order(bank) < oldest_order) {
      oldest_order = queues.front_order(bank);
      oldest_bank = bank;
    }
  }

  Candidate chosen{oldest_bank, 0, oldest_order, -1, false};
  auto& runs = scratch_->runs;
  runs.clear();
  if (!scheduler_->serves_oldest(queues.front(oldest_bank).bypassed)) {
    std::fill(scratch_->act_known.begin(), scratch_->act_known.end(), DecisionScratch::Stretch{});
    std::fill(scratch_->column_known.begin(), scratch_->column_known.end(), DecisionScratch::Stretch{});
    pre_known_ = {};
    // Each bank offers the scheduler one candidate: its oldest row hit, else its oldest request. A candidate's
    // first-command cycle is a timing search; a lower bound of it (the decision, the bank's own constraint) often
    // shows that it cannot beat the best so far, and then it is not searched: the scheduler ranks a later first
    // command after an earlier one, and the cycle is never below the bound. The candidate of the best bound is
    // searched first: its cycle is often its bound, which rules out the rest.
    auto& bounded = scratch_->bounded;
    auto& bounded_first = scratch_->bounded_first;
    auto& searched = scratch_->searched;
    bounded.clear();
    bounded_first.clear();
    searched.clear();
    std::uint32_t best = 0;
    for (std::uint64_t banks = nonempty; banks != 0; banks &= banks - 1) {
      const auto bank = static_cast<std::uint32_t>(__builtin_ctzll(banks));
      const std::uint64_t open = open_rows_[bank];
      const std::uint32_t hit =
          open != kClosed && open_row_parts_[direction][bank] > 0 ? queues.find_row(bank, open) : BankQueues::kNone;
      const bool row_hit = hit != BankQueues::kNone;
      const std::uint32_t index = row_hit ? hit : 0;
      const DramCommand first = row_hit ? column : open != kClosed ? DramCommand::pre : DramCommand::act;
      Cycle bound = std::max(decision, checker_.bank_ready(first, bank));
      if (row_hit) bound = checker_.column_bound(column, checker_.group_of(bank), bound);
      // Fields written in place (the scratch has room for a candidate per bank): a temporary is stored field by
      // field and reloaded whole, a reload that waits for the stores.
      const auto added = static_cast<std::uint32_t>(bounded.size());
      Candidate& candidate = bounded.emplace_back();
      candidate.bank = bank;
      candidate.index = index;
      candidate.order = index == 0 ? queues.front_order(bank) : queues.at(bank, index).order;
      candidate.first_command = bound;
      candidate.row_hit = row_hit;
      if (added > 0 && scheduler_->before(candidate, bounded[best])) best = added;
      bounded_first.push_back(first);
      searched.push_back(0);
    }
    const auto search = [&](std::uint32_t i) {
      if (searched[i] == 0) {
        bounded[i].first_command = first_command_cycle(bounded_first[i], bounded[i].bank, decision);
        searched[i] = 1;
      }
    };
    search(best);
    for (std::uint32_t i = 0; i < bounded.size(); ++i) {
      if (i == best || !scheduler_->before(bounded[i], bounded[best])) continue;
      search(i);
      if (scheduler_->before(bounded[i], bounded[best])) best = i;
    }
    chosen = bounded[best];
    runs.emplace_back().pick = chosen;
    // A part of several bursts is committed as one run; alone, its bursts would follow each other at tCCD_L and no
    // other bank group could use the gaps. So the readiest request of every other bank group joins it (PRE and ACT
    // as needed), and the runs' bursts alternate bank groups at tCCD_S, as a controller interleaving them would
    // issue them (FR-FCFS would pick those requests next, being ready a tCCD_S later).
    if (queues.at(chosen.bank, chosen.index).bursts > 1) {
      const auto chosen_group = checker_.group_of(chosen.bank);
      auto& group_lead = scratch_->group_lead;
      std::fill(group_lead.begin(), group_lead.end(), DecisionScratch::kNoLead);
      for (std::uint32_t i = 0; i < bounded.size(); ++i) {
        auto& lead = group_lead[checker_.group_of(bounded[i].bank)];
        if (lead == DecisionScratch::kNoLead || scheduler_->before(bounded[i], bounded[lead])) lead = i;
      }
      for (std::uint32_t group = 0; group < group_lead.size(); ++group) {
        if (group_lead[group] != DecisionScratch::kNoLead && group != chosen_group) search(group_lead[group]);
      }
      // Each other group's best: its lead, unless a candidate whose bound beats the lead's cycle is better.
      for (std::uint32_t i = 0; i < bounded.size(); ++i) {
        const auto group = checker_.group_of(bounded[i].bank);
        auto& lead = group_lead[group];
        if (group == chosen_group || i == lead || !scheduler_->before(bounded[i], bounded[lead])) continue;
        search(i);
        if (scheduler_->before(bounded[i], bounded[lead])) lead = i;
      }
      for (std::uint32_t group = 0; group < group_lead.size(); ++group) {
        if (group_lead[group] != DecisionScratch::kNoLead && group != chosen_group) {
          runs.emplace_back().pick = bounded[group_lead[group]];
        }
      }
    }
  } else {
    runs.emplace_back().pick = chosen;
  }
  const bool is_write = column == DramCommand::wr;
  bool oldest_served = false;
  for (auto& run : runs) {
    oldest_served = oldest_served || run.pick.order == oldest_order;
    const auto entry = queues.take(run.pick.bank, run.pick.index);
    if (entry.row == open_rows_[run.pick.bank]) --open_row_parts_[direction][run.pick.bank];
    run.segment = Segment{entry.parent, entry.row, 0, run.pick.bank, entry.bursts, is_write};
  }
  if (!oldest_served) ++queues.front(oldest_bank).bypassed;
}

Cycle DramChannel::open_rows_for_runs(Cycle decision) {
  // PRE and ACT where a run's row is not open, each at its earliest legal cycle. The scheduler already knows when
  // the first command of the chosen run may issue.
  auto& runs = scratch_->runs;
  Cycle first_command = kNever;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    auto& run = runs[r];
    const std::uint32_t bank = run.segment.bank;
    Cycle known_first = r == 0 ? run.pick.first_command : -1;
    const auto earliest = [&](DramCommand command, Cycle from) {
      if (known_first >= 0) return std::exchange(known_first, Cycle{-1});
      return checker_.earliest(command, bank, from);
    };
    run.at = decision;
    run.precharges = 0;
    run.opened_row = open_rows_[bank] != run.segment.row;
    if (!run.opened_row) {
      ++counters_.row_hits;
      // Valid only while no other run has issued a command in this decision.
      run.known_first = runs.size() == 1 ? known_first : -1;
      continue;
    }
    if (open_rows_[bank] != kClosed) {
      run.at = earliest(DramCommand::pre, run.at);
      checker_.issue(DramCommand::pre, bank, run.at);
      first_command = std::min(first_command, run.at);
      ++counters_.pres;
      ++run.precharges;
      ++counters_.row_conflicts;
    } else {
      ++counters_.row_misses;
    }
    run.at = earliest(DramCommand::act, run.at);
    checker_.issue(DramCommand::act, bank, run.at);
    first_command = std::min(first_command, run.at);
    set_open_row(bank, run.segment.row);
    ++counters_.acts;
    ++counters_.acts_per_bank[bank];
  }
  return first_command;
}

Cycle DramChannel::place_bursts(DramCommand column) {
  // Each run's bursts go out as one progression a column period apart, placed at once where the recorded commands
  // leave room; a run that meets an obstacle part way is cut there and its rest placed after it. The runs of other
  // bank groups fall into the gaps between each other's bursts (tCCD_S apart). The period is a whole number of those
  // slots so that they fill the gaps; with no other run a period longer than tCCD_L would only leave the bus idle, so
  // a run alone then places its bursts one by one (each at tCCD_L after the last).
  auto& runs = scratch_->runs;
  Cycle first_command = kNever;
  const bool one_by_one = runs.size() == 1 && checker_.column_period() > checker_.same_group_gap();
  for (auto& run : runs) {
    Cycle from = run.known_first >= 0 ? run.known_first : run.at;
    for (std::uint32_t left = run.segment.bursts; left > 0;) {
      const auto placed = checker_.place_columns(column, run.segment.bank, from, one_by_one ? 1 : left);
      checker_.issue_columns(column, run.segment.bank, placed.at, placed.count);
      first_command = std::min(first_command, placed.at);
      run.at = placed.at + static_cast<Cycle>(placed.count - 1) * checker_.column_period();
      left -= placed.count;
      from = run.at;
    }
  }
  return first_command;
}

const std::vector<SegmentDone>& DramChannel::report_parts(bool is_write, const RefreshCharge& refresh) {
  const auto& timing = checker_.timing();
  const bool turnaround = served_any_ && last_was_write_ != is_write;
  counters_.turnarounds += turnaround ? 1 : 0;
  served_any_ = true;
  last_was_write_ = is_write;
  auto& runs = scratch_->runs;
  auto& done_parts = scratch_->done;
  done_parts.clear();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    auto& run = runs[r];
    const auto& segment = run.segment;
    const Cycle done = run.at + (is_write ? timing.tWL : timing.tCL) + timing.burst;
    if (is_write) {
      ++counters_.write_segments;
      counters_.write_bursts += segment.bursts;
    } else {
      ++counters_.read_segments;
      counters_.read_bursts += segment.bursts;
    }
    counters_.last_done = std::max(counters_.last_done, done);
    auto& held = held_[is_write ? 1 : 0];
    held.push_back(run.at);
    std::push_heap(held.begin(), held.end(), std::greater<>());
    if (row_policy_->close_after_access(row_policy_->needs_queued_hit() && queued_hit(segment.bank, segment.row))) {
      // Auto-precharge (RDA/WRA): the PRE rides on the column command, at the first cycle tRAS/tRTP/tWR allow.
      checker_.issue(DramCommand::pre, segment.bank, checker_.bank_pre_ready(segment.bank), false);
      set_open_row(segment.bank, kClosed);
      ++counters_.pres;
      ++run.precharges;
    }
    // The refreshes issued just before the decision are charged to its first part. Fields written in place, as in
    // pick_runs().
    const bool first = r == 0;
    SegmentDone& part = done_parts.emplace_back();
    part.parent = segment.parent;
    part.done = done;
    part.is_write = is_write;
    part.bursts = segment.bursts;
    part.opened_row = run.opened_row;
    part.turnaround = first && turnaround;
    part.refresh_cycles = first ? refresh.cycles : 0;
    part.precharges = run.precharges + (first ? refresh.pres : 0);
    part.refreshes_all_bank = first ? static_cast<std::uint32_t>(counters_.refs_all_bank - refresh.refs_all_before) : 0;
    part.refreshes_per_bank =
        first ? static_cast<std::uint32_t>(counters_.refs_per_bank - refresh.refs_per_bank_before) : 0;
  }
  return done_parts;
}

}  // namespace roofsim::dram
